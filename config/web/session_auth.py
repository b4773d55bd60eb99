"""Session sign-in for account kinds that are not Django users (merchants on the
dashboard, customers on the hosted checkout and /account/).

The session holds the account's primary key and an HMAC of its password hash; every
request compares that HMAC with the stored hash, so a password change elsewhere ends
the session. Each kind uses its own session keys, so a merchant, a customer and a
staff admin session in one browser leave each other alone.
"""

from functools import wraps
from urllib.parse import urlencode

from django.http import HttpResponseRedirect
from django.middleware.csrf import rotate_token
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.crypto import constant_time_compare, salted_hmac
from django.utils.http import url_has_allowed_host_and_scheme


class SessionAccount:
    def __init__(
        self,
        *,
        model,
        id_key: str,
        hash_key: str,
        salt: str,
        request_attribute: str,
        login_url_name: str,
        flush_on_switch: bool = False,
    ):
        self.model = model
        self.id_key = id_key
        self.hash_key = hash_key
        self.salt = salt
        self.attribute = request_attribute
        self.login_url_name = login_url_name
        self.flush_on_switch = flush_on_switch

    def stamp(self, account) -> str:
        """An HMAC of the account's password hash, or of its `session_stamp`
        when it has one (a merchant's member: its credential version too)."""
        value = getattr(account, "session_stamp", account.password)
        return salted_hmac(self.salt, value, algorithm="sha256").hexdigest()

    def sign_in(self, request, account) -> None:
        """Bind the session to `account` under a fresh session key (no fixation)."""
        session = request.session
        if self.flush_on_switch and session.get(self.id_key) not in (None, account.pk):
            # Another account of this kind was signed in here: nothing of it stays.
            session.flush()
        else:
            session.cycle_key()
        session[self.id_key] = account.pk
        session[self.hash_key] = self.stamp(account)
        rotate_token(request)
        setattr(request, self.attribute, account)

    def sign_out(self, request) -> None:
        """Drop only this kind's keys (other kinds stay signed in), new session key."""
        request.session.pop(self.id_key, None)
        request.session.pop(self.hash_key, None)
        request.session.cycle_key()
        rotate_token(request)
        setattr(request, self.attribute, None)

    def restamp(self, request, account) -> None:
        """After a password change: this session stays, every other one ends."""
        request.session.cycle_key()
        request.session[self.hash_key] = self.stamp(account)

    def current(self, request):
        """The signed-in account, or None; a stale password stamp signs out."""
        if hasattr(request, self.attribute):
            return getattr(request, self.attribute)
        account = None
        pk = request.session.get(self.id_key)
        if pk is not None:
            account = self.model.objects.filter(pk=pk).first()
            stamp = request.session.get(self.hash_key, "")
            if account is None or not constant_time_compare(stamp, self.stamp(account)):
                request.session.pop(self.id_key, None)
                request.session.pop(self.hash_key, None)
                account = None
        setattr(request, self.attribute, account)
        return account

    def login_url(self) -> str:
        return reverse(self.login_url_name)

    def redirect_to_login(self, request) -> HttpResponseRedirect:
        query = urlencode({"next": request.get_full_path()})
        return HttpResponseRedirect(f"{self.login_url()}?{query}")

    def login_required(self, view):
        """Anonymous visitors go to the sign-in page; pages are never cached (they
        hold one account's data, and some show a secret once)."""

        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if self.current(request) is None:
                return self.redirect_to_login(request)
            response = view(request, *args, **kwargs)
            add_never_cache_headers(response)
            return response

        return wrapped


def safe_next_url(request, candidate: str | None) -> str | None:
    """`candidate` when it is a path on this site, else None (no open redirects)."""
    if candidate and url_has_allowed_host_and_scheme(
        candidate,
        allowed_hosts={request.get_host()},
        require_https=request.is_secure(),
    ):
        return candidate
    return None


def see_other(url: str) -> HttpResponseRedirect:
    """303: after a POST the browser GETs the next page (reload never re-posts)."""
    response = HttpResponseRedirect(url)
    response.status_code = 303
    return response
