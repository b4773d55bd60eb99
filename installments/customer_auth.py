"""Customer sign-in for the hosted checkout and `/account/` pages (DESIGN §4, §11).

Customers are not Django users, so, as for merchants in merchants/dashboard_auth.py,
the session holds the customer's primary key and an HMAC of their password hash:
a password change elsewhere ends the session. Only these keys are added or removed,
so a merchant's dashboard or a staff member's admin session in the same browser is
left alone (they are separate kinds of account).
"""

from functools import wraps
from urllib.parse import urlencode

from django.http import HttpResponseRedirect
from django.middleware.csrf import rotate_token
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.http import url_has_allowed_host_and_scheme

from payments.models import Customer

SESSION_CUSTOMER_KEY = "_customer_id"
SESSION_HASH_KEY = "_customer_hash"
_SESSION_HASH_SALT = "installments.customer_auth.session"


def _session_hash(customer: Customer) -> str:
    return salted_hmac(
        _SESSION_HASH_SALT, customer.password, algorithm="sha256"
    ).hexdigest()


def customer_sign_in(request, customer: Customer) -> None:
    """Bind the session to `customer` under a fresh session key (no fixation)."""
    request.session.cycle_key()
    request.session[SESSION_CUSTOMER_KEY] = customer.pk
    request.session[SESSION_HASH_KEY] = _session_hash(customer)
    rotate_token(request)
    request.customer = customer


def customer_sign_out(request) -> None:
    request.session.pop(SESSION_CUSTOMER_KEY, None)
    request.session.pop(SESSION_HASH_KEY, None)
    request.session.cycle_key()
    rotate_token(request)
    request.customer = None


def session_customer(request) -> Customer | None:
    """The signed-in customer, or None (a stale password stamp signs out)."""
    if hasattr(request, "customer"):
        return request.customer
    customer = None
    pk = request.session.get(SESSION_CUSTOMER_KEY)
    if pk is not None:
        customer = Customer.objects.filter(pk=pk).first()
        stamp = request.session.get(SESSION_HASH_KEY, "")
        if customer is None or not constant_time_compare(
            stamp, _session_hash(customer)
        ):
            request.session.pop(SESSION_CUSTOMER_KEY, None)
            request.session.pop(SESSION_HASH_KEY, None)
            customer = None
    request.customer = customer
    return customer


def safe_next_url(request, candidate: str | None) -> str | None:
    """`candidate` when it is a path on this site, else None (no open redirects)."""
    if candidate and url_has_allowed_host_and_scheme(
        candidate,
        allowed_hosts={request.get_host()},
        require_https=request.is_secure(),
    ):
        return candidate
    return None


def customer_login_required(view):
    """Anonymous visitors go to `/account/login/?next=...`; signed-in requests
    carry `request.customer`. Pages hold one customer's data: never cached."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if session_customer(request) is None:
            query = urlencode({"next": request.get_full_path()})
            return HttpResponseRedirect(f"{reverse('account:login')}?{query}")
        response = view(request, *args, **kwargs)
        add_never_cache_headers(response)
        return response

    return wrapped
