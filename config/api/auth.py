"""JWTs for the two account kinds, merchants and customers (DESIGN section 4).

Tokens are simplejwt tokens carrying `role` (`merchant` or `customer`) and `sub`
(the account's public id). Each account kind lives in its own app; that app
registers a loader for its role in `AppConfig.ready()`, so this module never imports
an app above it.

Revocation (docs/decisions.md, "Issue 14: token revocation"): each account has a
`credential_version` that its `set_password` moves on. Tokens carry the version
they were issued under (`cv`) and every use compares it with the account already
loaded for the request, so a password change or reset ends every earlier access
and refresh token at once, at no extra query. Tokens also carry the time of the
sign-in that started their refresh chain (`auth_time`): no token of the chain
lives past JWT_SIGN_IN_LIFETIME from it, however often it is refreshed.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework_simplejwt.exceptions import TokenError
from rest_framework_simplejwt.tokens import AccessToken, RefreshToken, Token

from .models import UsedRefreshToken

ROLE_MERCHANT = "merchant"
ROLE_CUSTOMER = "customer"
CLAIM_CREDENTIAL_VERSION = "cv"
CLAIM_SIGNED_IN_AT = "auth_time"  # the name OpenID Connect gives this claim
# When the sign-in verified a second factor (a Unix time; absent: none did).
# Refreshing keeps it: a change that needs a recent code reads it.
CLAIM_CODE_AT = "mfa_at"


class Account(Protocol):
    """What tokens need of an account kind (a merchant's Member, a Customer). An
    account with a `principal` (a member) authenticates requests as that (its
    merchant); others as themselves."""

    public_id: str
    credential_version: int


_loaders: dict[str, Callable[[str], Account | None]] = {}


def register_principal(role: str, loader: Callable[[str], Account | None]) -> None:
    """`loader(public_id)` returns the account for a token's `sub`, or None."""
    _loaders[role] = loader


def _load(role: str, public_id: str):
    loader = _loaders.get(role)
    return loader(public_id) if loader and public_id else None


@dataclass(frozen=True)
class JWTCredential:
    token: AccessToken
    role: str

    @property
    def credential_kind(self) -> str:
        return f"{self.role}_jwt"


def issue_tokens(
    *, role: str, account: Account, code_verified: bool = False
) -> dict[str, str]:
    """A new pair for a sign-in of `account` (login or registration);
    `code_verified` when the sign-in verified a two-factor code."""
    now = int(timezone.now().timestamp())
    return _pair(
        role=role,
        account=account,
        signed_in_at=now,
        code_at=now if code_verified else None,
    )


def _pair(
    *, role: str, account: Account, signed_in_at: int, code_at: int | None = None
) -> dict[str, str]:
    chain_ends = signed_in_at + int(settings.JWT_SIGN_IN_LIFETIME.total_seconds())
    refresh = RefreshToken()
    refresh["role"] = role
    refresh["sub"] = account.public_id
    refresh[CLAIM_CREDENTIAL_VERSION] = account.credential_version
    refresh[CLAIM_SIGNED_IN_AT] = signed_in_at
    if code_at is not None:
        refresh[CLAIM_CODE_AT] = code_at
    access = refresh.access_token
    for token in (refresh, access):
        token["exp"] = min(token["exp"], chain_ends)
    return {"access": str(access), "refresh": str(refresh)}


def _refuse_if_revoked(token: Token, account: Account, kind: str) -> None:
    # Tokens issued before versions existed carry none; every account started at 0.
    if token.get(CLAIM_CREDENTIAL_VERSION, 0) != account.credential_version:
        raise exceptions.AuthenticationFailed(
            f"The {kind} token was revoked: the account's password changed after "
            "it was issued (or, for a member of a merchant's team, their role). "
            "Sign in again."
        )


def bearer_token(request) -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


class JWTAuthentication(BaseAuthentication):
    """Accepts `Authorization: Bearer <access JWT>` of either role."""

    def authenticate(self, request):
        raw = bearer_token(request)
        if raw is None or raw.count(".") != 2:
            return None
        try:
            token = AccessToken(raw)
        except TokenError:
            raise exceptions.AuthenticationFailed(
                "The access token is invalid or expired."
            ) from None
        role = token.get("role")
        account = _load(role, token.get("sub"))
        if account is None:
            raise exceptions.AuthenticationFailed(
                "The access token's account does not exist."
            )
        _refuse_if_revoked(token, account, "access")
        principal = getattr(account, "principal", account)
        return principal, JWTCredential(token=token, role=role)

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


def refresh_tokens(raw_refresh: str) -> dict[str, str]:
    """Exchange a refresh token for a new pair; each refresh token works once, and
    the new pair belongs to the same sign-in (it ends when that sign-in does)."""
    try:
        refresh = RefreshToken(raw_refresh)
    except TokenError:
        raise exceptions.AuthenticationFailed(
            "The refresh token is invalid or expired."
        ) from None
    role, public_id = refresh.get("role"), refresh.get("sub")
    account = _load(role, public_id)
    if account is None:
        raise exceptions.AuthenticationFailed(
            "The refresh token's account does not exist."
        )
    _refuse_if_revoked(refresh, account, "refresh")
    # Tokens issued before `auth_time` existed start their chain at their own
    # issue. The `exp` of a chain's tokens is capped at its end already; this check
    # also ends chains when JWT_SIGN_IN_LIFETIME is lowered after they started.
    signed_in_at = int(refresh.get(CLAIM_SIGNED_IN_AT, refresh["iat"]))
    lifetime = settings.JWT_SIGN_IN_LIFETIME
    if timezone.now().timestamp() >= signed_in_at + lifetime.total_seconds():
        raise exceptions.AuthenticationFailed(
            f"The sign-in this refresh token belongs to is more than {lifetime.days} "
            "days old. Sign in again."
        )
    try:
        with transaction.atomic():
            UsedRefreshToken.objects.create(
                jti=refresh["jti"],
                expires_at=datetime.fromtimestamp(refresh["exp"], tz=UTC),
            )
    except IntegrityError:
        raise exceptions.AuthenticationFailed(
            "The refresh token was already used; sign in again."
        ) from None
    return _pair(
        role=role,
        account=account,
        signed_in_at=signed_in_at,
        code_at=refresh.get(CLAIM_CODE_AT),
    )
