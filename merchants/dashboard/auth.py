"""Member sign-in for the server-rendered dashboard (DESIGN sections 1, 4, 12, 20).

People sign in as members of a merchant's team, which are not Django users, so
Django's auth session is not used: the session holds the member's primary key and
an HMAC of the member's password hash, credential version and status. Every
request compares that HMAC with the stored row, so changing or resetting the
password, a role change and a removal end the member's other sessions at once (the
session that changed its own password is re-stamped and stays signed in).

Every dashboard page of every app uses `MerchantLoginRequiredMixin` (class-based
views) or `merchant_login_required` (functions). Both set `request.member`,
`request.account` (the member's merchant account, the live row) and
`request.merchant` (the side the dashboard shows), which the shared base template
`templates/dashboard/base.html` reads for its header and banners; pages scope
every query to the merchant and ask `roles.may` for what the member may do.

Test mode (DESIGN section 21, docs/test-mode.md): the header's "Test data"
switch keeps `SESSION_TEST_MODE_KEY` in the session. While it is on,
`request.merchant` is the account's test side row and the request enters the
test side (config/sides.py), so every data page of every app shows and acts on
test data without knowing about it. What belongs to the account, not to a side
(the team, the audit log, two-factor sign-in, passwords, approval), is read
from `request.account`.
"""

from functools import wraps

from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers

from config.sides import enter_test_side, leave_test_side
from config.web.session_auth import SessionAccount, safe_next_url

from .. import services
from ..models import Merchant
from ..team import two_factor
from ..team.models import Member
from ..team.roles import PERMISSIONS, may, roles_with

SESSION_MEMBER_KEY = "_dashboard_member_id"
SESSION_HASH_KEY = "_dashboard_member_hash"
# When this session last verified a two-factor code (a Unix time): changes
# that need a fresh code ask for one when it is older than 10 minutes.
SESSION_CODE_AT_KEY = "_dashboard_code_at"
# True while the dashboard shows the account's test side (the "Test data"
# switch); absent: live data.
SESSION_TEST_MODE_KEY = "_dashboard_test_mode"


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
    "set_test_mode",
    "may_use_test_side",
    "session_merchant",
]


def login_url() -> str:
    return _account.login_url()


def dashboard_sign_in(request, member: Member, *, code_verified=False) -> None:
    """Sign `member` in; `code_verified` when a two-factor code was part of
    the sign-in (it counts as a fresh code)."""
    _account.sign_in(request, member)
    # Every sign-in starts on live data: the switch is a choice of this visit.
    request.session.pop(SESSION_TEST_MODE_KEY, None)
    _show_side(request, member)
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
    request.session.pop(SESSION_TEST_MODE_KEY, None)
    _account.sign_out(request)


def keep_session_after_password_change(request, member: Member) -> None:
    _account.restamp(request, member)


def session_member(request) -> Member | None:
    """The signed-in member; sets `request.member`, `request.account` and
    `request.merchant` (the side shown: the test side in test mode)."""
    member = _account.current(request)
    _show_side(request, member)
    return member


def may_use_test_side(account: Merchant) -> bool:
    """The test side is closed to a suspended account (it is inactive then),
    so the switch is too."""
    return account.status != Merchant.Status.SUSPENDED


def set_test_mode(request, on: bool) -> None:
    """The "Test data" switch: nothing is recorded (it changes no data), the
    session alone remembers it; this request shows the side chosen."""
    if on:
        request.session[SESSION_TEST_MODE_KEY] = True
    else:
        request.session.pop(SESSION_TEST_MODE_KEY, None)
        leave_test_side()
    _show_side(request, request.member)


def _show_side(request, member: Member | None) -> None:
    """`request.account` the member's account (live row), `request.merchant`
    the side the dashboard shows, each carrying the member (as
    `Member.principal` does, for the services that read `merchant.member`)."""
    if member is None:
        request.account = request.merchant = None
        return
    account = member.principal
    request.account = request.merchant = account
    if not request.session.get(SESSION_TEST_MODE_KEY):
        return
    if not may_use_test_side(account):
        # Suspended since the switch was turned on: back to live data.
        request.session.pop(SESSION_TEST_MODE_KEY, None)
        return
    side = services.test_side_for(account)
    side.member = member
    request.merchant = side
    # A live processor's adapter refuses any call from here on (config/sides.py).
    enter_test_side()


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
    signed-in requests carry `request.member`, `request.account` and
    `request.merchant` (the side shown, see the module's docstring). Pages are
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
