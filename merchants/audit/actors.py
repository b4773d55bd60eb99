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


def merchant_actor(merchant: Merchant, request=None) -> Actor:
    """The account's owner, signed in as the merchant (until members exist)."""
    if request is None:
        return Actor(Kind.MEMBER, merchant.public_id, merchant.email)
    return _located(Kind.MEMBER, merchant.public_id, merchant.email, request)


def actor_from_request(request) -> Actor:
    """A member, an API key (its masked prefix, never the key), the merchant
    signed in by JWT or dashboard session, or a staff user in the admin."""
    member = getattr(request, "member", None)
    if member is not None:
        return _located(Kind.MEMBER, member.public_id, member.email, request)
    auth = getattr(request, "auth", None)
    if isinstance(auth, ApiKey):
        return _located(Kind.API_KEY, auth.masked_prefix, auth.name, request)
    merchant = getattr(request, "merchant", None)
    user = getattr(request, "user", None)
    if merchant is None and isinstance(user, Merchant):
        merchant = user
    if isinstance(merchant, Merchant):
        return merchant_actor(merchant, request)
    if user is not None and getattr(user, "is_staff", False):
        return _located(Kind.STAFF, user.get_username(), user.get_username(), request)
    raise ValueError("no actor in this request")
