"""Customer sign-in for the hosted checkout and `/account/` pages (DESIGN §4, §11).

Customers are not Django users, so, as for merchants in merchants/dashboard/auth.py,
the session holds the customer's primary key and an HMAC of their password hash:
a password change elsewhere ends the session. Only these keys are added or removed,
so a merchant's dashboard or a staff member's admin session in the same browser is
left alone (they are separate kinds of account).
"""

from config.web.session_auth import SessionAccount, safe_next_url

from .models import Customer

SESSION_CUSTOMER_KEY = "_customer_id"
SESSION_HASH_KEY = "_customer_hash"

_account = SessionAccount(
    model=Customer,
    id_key=SESSION_CUSTOMER_KEY,
    hash_key=SESSION_HASH_KEY,
    # The salt names the module this first lived in; changing it would sign every
    # customer out.
    salt="installments.customer_auth.session",
    request_attribute="customer",
    login_url_name="account:login",
)

__all__ = [
    "customer_login_required",
    "customer_sign_in",
    "customer_sign_out",
    "next_path",
    "safe_next_url",
    "session_customer",
]


def customer_sign_in(request, customer: Customer) -> None:
    _account.sign_in(request, customer)


def customer_sign_out(request) -> None:
    _account.sign_out(request)


def session_customer(request) -> Customer | None:
    return _account.current(request)


customer_login_required = _account.login_required


def next_path(request) -> str | None:
    """Where a page sends the customer back to: the request's `next` (posted or
    in the query), when it is a path on this site."""
    return safe_next_url(request, request.POST.get("next") or request.GET.get("next"))
