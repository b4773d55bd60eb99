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

from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers

from config.web.session_auth import SessionAccount, safe_next_url

from ..models import Merchant
from ..team import two_factor
from ..team.models import Member
from ..team.roles import PERMISSIONS, may, roles_with

SESSION_MEMBER_KEY = "_dashboard_member_id"
SESSION_HASH_KEY = "_dashboard_member_hash"
# When this session last verified a two-factor code (a Unix time): changes
# that need a fresh code ask for one when it is older than 10 minutes.
SESSION_CODE_AT_KEY = "_dashboard_code_at"


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
    "code_is_fresh",
    "keep_session_after_password_change",
    "login_url",
    "merchant_login_required",
    "record_code",
    "safe_next_url",
    "session_member",
    "session_merchant",
]


def login_url() -> str:
    return _account.login_url()


def dashboard_sign_in(request, member: Member, *, code_verified=False) -> None:
    """Sign `member` in; `code_verified` when a two-factor code was part of
    the sign-in (it counts as a fresh code)."""
    _account.sign_in(request, member)
    request.merchant = member.principal
    request.session.pop(SESSION_CODE_AT_KEY, None)
    if code_verified:
        record_code(request)


def record_code(request) -> None:
    """This session verified a two-factor code just now."""
    request.session[SESSION_CODE_AT_KEY] = int(timezone.now().timestamp())


def code_is_fresh(request, member: Member) -> bool:
    return two_factor.code_is_fresh(member, request.session.get(SESSION_CODE_AT_KEY))


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
    assumed: a page that names no permission is refused to everyone.

    Two-factor sign-in (docs/two-factor.md): a member whose team requires it
    and who has none is sent to the Security page (`enrolment_page`) from
    every other page; a page whose changes need a fresh code
    (`fresh_code_for_changes`, or `needs_fresh_code`) answers a change by a
    member with two-factor sign-in and no code in the last 10 minutes with a
    form asking for one, which returns to the page."""

    permission: str | None = None
    change_permission: str | None = None
    fresh_code_for_changes = False
    enrolment_page = False

    def needed_permission(self, request) -> str | None:
        if request.method in ("GET", "HEAD", "OPTIONS"):
            return self.permission
        return self.change_permission or self.permission

    def needs_fresh_code(self, request) -> bool:
        return self.fresh_code_for_changes and request.method == "POST"

    def dispatch(self, request, *args, **kwargs):
        member = session_member(request)
        if member is None:
            return _account.redirect_to_login(request)
        if not self.enrolment_page and two_factor.enrolment_required(member):
            return redirect(reverse("merchants_dashboard:security"))
        needed = self.needed_permission(request)
        if needed is None or not may(member.role, needed):
            response = forbidden_page(request, member, needed)
        elif self.needs_fresh_code(request) and not code_is_fresh(request, member):
            response = fresh_code_page(request)
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


def fresh_code_page(request):
    """403: the change needs a code from the last 10 minutes; the form sends
    one to the confirmation page, which returns here."""
    return TemplateResponse(
        request,
        "merchants/dashboard/fresh_code.html",
        {"next": request.get_full_path()},
        status=403,
    )
