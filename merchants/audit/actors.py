"""Who did it: an `Actor`, read from the request by the view or API layer and
passed to the service that records the change (`actor=`)."""

import ipaddress
from dataclasses import dataclass

from config.api.login_guard import client_ip
from config.text import one_line

from ..models import ApiKey, Merchant
from .models import LABEL_MAX_LENGTH, USER_AGENT_MAX_LENGTH, AuditEntry

Kind = AuditEntry.ActorKind


@dataclass(frozen=True)
class Actor:
    kind: str
    id: str
    label: str = ""
    # Where the request came from; none for the system's own jobs.
    ip: str | None = None
    user_agent: str = ""


SYSTEM = Actor(Kind.SYSTEM, "system", "System")


def request_ip(request) -> str | None:
    """The client address the sign-in guard counts, when it is one."""
    try:
        return str(ipaddress.ip_address(client_ip(request)))
    except ValueError:
        return None


def request_user_agent(request) -> str:
    """One line, no control characters, at most 300 characters."""
    raw = request.META.get("HTTP_USER_AGENT", "")
    return one_line(raw, USER_AGENT_MAX_LENGTH) if raw else ""


def _located(kind: str, actor_id: str, label: str, request) -> Actor:
    return Actor(
        kind,
        actor_id,
        one_line(label or "", LABEL_MAX_LENGTH),
        request_ip(request),
        request_user_agent(request),
    )


def member_actor(member, request=None) -> Actor:
    """A member of the merchant's team (signed in, or signing in)."""
    if request is None:
        return Actor(Kind.MEMBER, member.public_id, member.email)
    return _located(Kind.MEMBER, member.public_id, member.email, request)


def actor_from_request(request) -> Actor:
    """The member signed in on the dashboard or by merchant JWT, an API key (its
    masked prefix, never the key), or a staff user in the admin."""
    user = getattr(request, "user", None)
    member = getattr(request, "member", None)
    if member is None and isinstance(user, Merchant):
        member = user.member
    if member is not None:
        return member_actor(member, request)
    auth = getattr(request, "auth", None)
    if isinstance(auth, ApiKey):
        return _located(Kind.API_KEY, auth.masked_prefix, auth.name, request)
    if user is not None and getattr(user, "is_staff", False):
        return _located(Kind.STAFF, user.get_username(), user.get_username(), request)
    raise ValueError("no actor in this request")
