"""Member sign-in for the server-rendered dashboard (DESIGN sections 1, 4, 12, 20).

People sign in as members of a merchant's team, which are not Django users, so
Django's auth session is not used: the session holds the member's primary key and
an HMAC of the member's password hash, credential version and status. Every
request compares that HMAC with the stored row, so changing or resetting the
password, a role change and a removal end the member's other sessions at once (the
session that changed its own password is re-stamped and stays signed in).

Every dashboard page of every app uses `MerchantLoginRequiredMixin` (class-based
views) or `merchant_login_required` (functions). Both set `request.member` and
`request.merchant` (the member's merchant), which the shared base template
`templates/dashboard/base.html` reads for its header and status banners; pages
scope every query to the merchant and ask `roles.may` for what the member may do.
"""

from functools import wraps

from django.template.response import TemplateResponse
from django.utils.cache import add_never_cache_headers

from config.web.session_auth import SessionAccount, safe_next_url

from ..models import Merchant
from ..team.models import Member
from ..team.roles import PERMISSIONS, may, roles_with

SESSION_MEMBER_KEY = "_dashboard_member_id"
SESSION_HASH_KEY = "_dashboard_member_hash"


class _ActiveMembers:
    """The rows a session may name: active members, their merchant loaded."""

    objects = Member.objects.select_related("merchant").filter(
        status=Member.Status.ACTIVE
    )


_account = SessionAccount(
    model=_ActiveMembers,
    id_key=SESSION_MEMBER_KEY,
    hash_key=SESSION_HASH_KEY,
    salt="merchants.dashboard_auth.member_session",
    request_attribute="member",
    login_url_name="merchants_dashboard:login",
    # Signing in as another merchant in this browser leaves nothing of the first.
    flush_on_switch=True,
)

__all__ = [
    "MerchantLoginRequiredMixin",
    "dashboard_sign_in",
    "dashboard_sign_out",
    "keep_session_after_password_change",
    "login_url",
    "merchant_login_required",
    "safe_next_url",
    "session_member",
    "session_merchant",
]


def login_url() -> str:
    return _account.login_url()


def dashboard_sign_in(request, member: Member) -> None:
    _account.sign_in(request, member)
    request.merchant = member.principal


def dashboard_sign_out(request) -> None:
    """Only the dashboard's keys are dropped: staff signed in to /admin/ in the same
    browser are a separate kind of account and stay signed in."""
    _account.sign_out(request)


def keep_session_after_password_change(request, member: Member) -> None:
    _account.restamp(request, member)


def session_member(request) -> Member | None:
    """The signed-in member; sets `request.member` and `request.merchant`."""
    member = _account.current(request)
    request.merchant = member.principal if member is not None else None
    return member


def session_merchant(request) -> Merchant | None:
    member = session_member(request)
    return member.merchant if member is not None else None


def merchant_login_required(view):
    """`MerchantLoginRequiredMixin` for function views."""

    def signed_in(request, *args, **kwargs):
        session_member(request)
        return view(request, *args, **kwargs)

    return _account.login_required(wraps(view)(signed_in))


class MerchantLoginRequiredMixin:
    """First base of a dashboard view: anonymous visitors go to the sign-in page;
    signed-in requests carry `request.member` and `request.merchant`. Pages are
    never cached: they hold one merchant's data, and some show a secret once.

    Each page names what it needs from the permission table (merchants.team.
    roles): `permission` to read it, `change_permission` to post to it (None:
    the same). A member whose role lacks it gets a 403 page. Nothing is
    assumed: a page that names no permission is refused to everyone."""

    permission: str | None = None
    change_permission: str | None = None

    def needed_permission(self, request) -> str | None:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return self.permission
        return self.change_permission or self.permission

    def dispatch(self, request, *args, **kwargs):
        member = session_member(request)
        if member is None:
            return _account.redirect_to_login(request)
        needed = self.needed_permission(request)
        if needed is None or not may(member.role, needed):
            response = forbidden_page(request, member, needed)
        else:
            response = super().dispatch(request, *args, **kwargs)
        add_never_cache_headers(response)
        return response


def forbidden_page(request, member: Member, permission: str | None):
    """403: what the member's role lacks, and who can do it."""
    roles = roles_with(permission) if permission in PERMISSIONS else []
    return TemplateResponse(
        request,
        "merchants/dashboard/forbidden.html",
        {
            "role": member.role,
            "permission": PERMISSIONS.get(permission, ""),
            "roles": roles,
        },
        status=403,
    )
