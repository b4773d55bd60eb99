"""Throttles on login and sign-up endpoints (DESIGN section 4).

Sign-in, per account: 5 failed logins in a 15-minute window, then 429 for that
account until the window ends. Per client IP: a generous budget (300/min by
default), so that many people behind one address still get in.

Sign-up, per client IP: `SIGNUP_RATE_LIMIT` (10 an hour by default); per e-mail
address: `SIGNUP_RATE_LIMIT_PER_ADDRESS` (3 an hour), whether or not the address
has an account, so that the answer says nothing about it. Every sign-up sends an
e-mail; these keep it from being a way to send our e-mails to anyone.

Asking for a password-reset link or a one-time sign-in code: the sign-in's
budget per client IP, and 5 an hour per e-mail address and kind of request,
whether or not the address has an account.
"""

import hashlib

from django.conf import settings

from . import ratelimit
from .errors import InvalidCredentials, RateLimited
from .passwords import burn_hash_time
from .rates import parse_rate


def _address_digest(email: str) -> str:
    """A digest of the address, not the address: an e-mail address may be 254
    characters and counter keys hold 200 (and the counters need no PII)."""
    return hashlib.sha256(email.strip().lower().encode()).hexdigest()


def _failure_key(kind: str, email: str) -> str:
    return f"login-fail:{kind}:{_address_digest(email)}"


def check_login_allowed(*, kind: str, email: str, client_ip: str) -> None:
    per_ip = ratelimit.hit(
        f"login-ip:{client_ip}", limit=settings.LOGIN_REQUESTS_PER_IP_PER_MINUTE
    )
    if per_ip.exceeded:
        raise RateLimited(
            "Too many sign-in requests from this address; retry in "
            f"{per_ip.seconds_to_reset()} s.",
            headers={"Retry-After": str(per_ip.seconds_to_reset())},
        )
    failures = ratelimit.peek(
        _failure_key(kind, email),
        limit=settings.LOGIN_FAILURES_PER_ACCOUNT,
        window_seconds=settings.LOGIN_FAILURE_WINDOW_SECONDS,
    )
    if failures.count >= failures.limit:
        raise RateLimited(
            "Too many failed sign-ins for this account; retry in "
            f"{failures.seconds_to_reset()} s.",
            headers={"Retry-After": str(failures.seconds_to_reset())},
        )


def check_sign_up_allowed(*, kind: str, email: str, client_ip: str) -> None:
    """Count one sign-up of `email` from `client_ip`: RateLimited (429, with
    Retry-After) over either budget."""
    limit, seconds = parse_rate(settings.SIGNUP_RATE_LIMIT)
    per_ip = ratelimit.hit(
        f"signup-ip:{kind}:{client_ip}", limit=limit, window_seconds=seconds
    )
    if per_ip.exceeded:
        raise RateLimited(
            "Too many sign-ups from this address; retry in "
            f"{per_ip.seconds_to_reset()} s.",
            headers={"Retry-After": str(per_ip.seconds_to_reset())},
        )
    limit, seconds = parse_rate(settings.SIGNUP_RATE_LIMIT_PER_ADDRESS)
    per_address = ratelimit.hit(
        f"signup-address:{kind}:{_address_digest(email)}",
        limit=limit,
        window_seconds=seconds,
    )
    if per_address.exceeded:
        raise RateLimited(
            "Too many sign-ups with this e-mail address; retry in "
            f"{per_address.seconds_to_reset()} s.",
            headers={"Retry-After": str(per_address.seconds_to_reset())},
        )


# Asking for a password-reset link or a sign-in code, per e-mail address and
# purpose, counted whether or not the address has an account.
ASKS_PER_ADDRESS_PER_HOUR = 5


def check_ask_allowed(*, kind: str, what: str, email: str, client_ip: str) -> None:
    """Count one request for a message that lets someone in (`what`: a reset
    link, a sign-in code) to `email` from `client_ip`: RateLimited (429, with
    Retry-After) over the sign-in's budget per client address, or over
    `ASKS_PER_ADDRESS_PER_HOUR` for the address, which counts whether or not
    it has an account, so that the answer says nothing about it."""
    per_ip = ratelimit.hit(
        f"login-ip:{client_ip}", limit=settings.LOGIN_REQUESTS_PER_IP_PER_MINUTE
    )
    if per_ip.exceeded:
        raise RateLimited(
            "Too many requests from this address; retry in "
            f"{per_ip.seconds_to_reset()} s.",
            headers={"Retry-After": str(per_ip.seconds_to_reset())},
        )
    per_address = ratelimit.hit(
        f"ask:{what}:{kind}:{_address_digest(email)}",
        limit=ASKS_PER_ADDRESS_PER_HOUR,
        window_seconds=3600,
    )
    if per_address.exceeded:
        raise RateLimited(
            "Too many requests for this e-mail address; retry in "
            f"{per_address.seconds_to_reset()} s.",
            headers={"Retry-After": str(per_address.seconds_to_reset())},
        )


def record_login_failure(*, kind: str, email: str) -> None:
    ratelimit.hit(
        _failure_key(kind, email),
        limit=settings.LOGIN_FAILURES_PER_ACCOUNT,
        window_seconds=settings.LOGIN_FAILURE_WINDOW_SECONDS,
    )


def client_ip(request) -> str:
    return request.META.get("REMOTE_ADDR") or "unknown"


def sign_in(*, kind: str, email: str, password: str, client_ip: str, lookup):
    """The one sign-in rule for every account kind: throttled, constant-time-ish,
    and the same answer for an unknown e-mail and a wrong password.

    `lookup(email)` returns the account (with `check_password`) or None.
    """
    check_login_allowed(kind=kind, email=email, client_ip=client_ip)
    account = lookup(email)
    if account is None:
        burn_hash_time(password)
    if account is None or not account.check_password(password):
        record_login_failure(kind=kind, email=email)
        raise InvalidCredentials()
    return account


def second_factor(*, kind: str, email: str, client_ip: str, verify) -> None:
    """The second step of a sign-in (a two-factor code) under the first's
    rules: the same budgets, and a wrong code counts as a failed sign-in of
    the account. `verify()` says whether the code is right."""
    check_login_allowed(kind=kind, email=email, client_ip=client_ip)
    if not verify():
        record_login_failure(kind=kind, email=email)
        raise InvalidCredentials(
            "The code is incorrect or was already used. Enter the current code "
            "of your authenticator app, or an unused backup code."
        )
