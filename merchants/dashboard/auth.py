"""Merchant sign-in for the server-rendered dashboard (DESIGN sections 1, 4, 12).

Merchants are not Django users, so Django's auth session is not used: the session
holds the merchant's primary key and an HMAC of the merchant's password hash. Every
request compares that HMAC with the stored password hash, so changing or resetting
the password ends every other session of the merchant at once (the session that
changed it is re-stamped and stays signed in).

Every dashboard page of every app uses `MerchantLoginRequiredMixin` (class-based
views) or `merchant_login_required` (functions). Both set `request.merchant`, which
the shared base template `templates/dashboard/base.html` reads for its header and
status banners; pages scope every query to it.
"""

from django.utils.cache import add_never_cache_headers

from config.web.session_auth import SessionAccount, safe_next_url

from ..models import Merchant

SESSION_MERCHANT_KEY = "_dashboard_merchant_id"
SESSION_HASH_KEY = "_dashboard_merchant_hash"

_account = SessionAccount(
    model=Merchant,
    id_key=SESSION_MERCHANT_KEY,
    hash_key=SESSION_HASH_KEY,
    # The module's old name: a new salt would sign every merchant out.
    salt="merchants.dashboard_auth.session",
    request_attribute="merchant",
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
    "session_merchant",
]


def login_url() -> str:
    return _account.login_url()


def dashboard_sign_in(request, merchant: Merchant) -> None:
    _account.sign_in(request, merchant)


def dashboard_sign_out(request) -> None:
    """Only the dashboard's keys are dropped: staff signed in to /admin/ in the same
    browser are a separate kind of account and stay signed in."""
    _account.sign_out(request)


def keep_session_after_password_change(request, merchant: Merchant) -> None:
    _account.restamp(request, merchant)


def session_merchant(request) -> Merchant | None:
    return _account.current(request)


merchant_login_required = _account.login_required


class MerchantLoginRequiredMixin:
    """First base of a dashboard view: anonymous visitors go to the sign-in page;
    signed-in requests carry `request.merchant`. Pages are never cached: they hold
    one merchant's data, and some show a secret once."""

    def dispatch(self, request, *args, **kwargs):
        if session_merchant(request) is None:
            return _account.redirect_to_login(request)
        response = super().dispatch(request, *args, **kwargs)
        add_never_cache_headers(response)
        return response
