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

from functools import wraps
from urllib.parse import urlencode

from django.http import HttpResponseRedirect
from django.middleware.csrf import rotate_token
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.http import url_has_allowed_host_and_scheme

from .models import Merchant

SESSION_MERCHANT_KEY = "_dashboard_merchant_id"
SESSION_HASH_KEY = "_dashboard_merchant_hash"
_SESSION_HASH_SALT = "merchants.dashboard_auth.session"


def login_url() -> str:
    return reverse("merchants_dashboard:login")


def _session_hash(merchant: Merchant) -> str:
    return salted_hmac(
        _SESSION_HASH_SALT, merchant.password, algorithm="sha256"
    ).hexdigest()


def dashboard_sign_in(request, merchant: Merchant) -> None:
    """Bind the session to `merchant` under a fresh session key (no fixation)."""
    session = request.session
    if session.get(SESSION_MERCHANT_KEY) not in (None, merchant.pk):
        # Another merchant was signed in in this browser: nothing of theirs stays.
        session.flush()
    else:
        session.cycle_key()
    session[SESSION_MERCHANT_KEY] = merchant.pk
    session[SESSION_HASH_KEY] = _session_hash(merchant)
    rotate_token(request)
    request.merchant = merchant


def dashboard_sign_out(request) -> None:
    """End the merchant's dashboard session.

    Only the dashboard's keys are dropped (and the key cycled), rather than the whole
    session flushed: staff signed in to /admin/ in the same browser are a separate
    kind of account and stay signed in.
    """
    request.session.pop(SESSION_MERCHANT_KEY, None)
    request.session.pop(SESSION_HASH_KEY, None)
    request.session.cycle_key()
    rotate_token(request)
    request.merchant = None


def keep_session_after_password_change(request, merchant: Merchant) -> None:
    """Re-stamp the current session with the new password hash; every other session
    of the merchant no longer matches and is signed out on its next request."""
    request.session.cycle_key()
    request.session[SESSION_HASH_KEY] = _session_hash(merchant)


def session_merchant(request) -> Merchant | None:
    """The signed-in merchant, or None. A session whose password stamp no longer
    matches (password changed elsewhere) is signed out here."""
    if hasattr(request, "merchant"):
        return request.merchant
    merchant = None
    pk = request.session.get(SESSION_MERCHANT_KEY)
    if pk is not None:
        merchant = Merchant.objects.filter(pk=pk).first()
        stamp = request.session.get(SESSION_HASH_KEY, "")
        if merchant is None or not constant_time_compare(
            stamp, _session_hash(merchant)
        ):
            request.session.pop(SESSION_MERCHANT_KEY, None)
            request.session.pop(SESSION_HASH_KEY, None)
            merchant = None
    request.merchant = merchant
    return merchant


def safe_next_url(request, candidate: str | None) -> str | None:
    """`candidate` when it is a path on this site, else None (no open redirects)."""
    if candidate and url_has_allowed_host_and_scheme(
        candidate,
        allowed_hosts={request.get_host()},
        require_https=request.is_secure(),
    ):
        return candidate
    return None


def _redirect_to_login(request) -> HttpResponseRedirect:
    query = urlencode({"next": request.get_full_path()})
    return HttpResponseRedirect(f"{login_url()}?{query}")


def merchant_login_required(view):
    """Decorator for function views: anonymous visitors go to the sign-in page."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if session_merchant(request) is None:
            return _redirect_to_login(request)
        response = view(request, *args, **kwargs)
        add_never_cache_headers(response)
        return response

    return wrapped


class MerchantLoginRequiredMixin:
    """First base of a dashboard view: anonymous visitors go to the sign-in page;
    signed-in requests carry `request.merchant`. Pages are never cached: they hold
    one merchant's data, and some show a secret once."""

    def dispatch(self, request, *args, **kwargs):
        if session_merchant(request) is None:
            return _redirect_to_login(request)
        response = super().dispatch(request, *args, **kwargs)
        add_never_cache_headers(response)
        return response
