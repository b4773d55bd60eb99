"""JWTs for the two account kinds, merchants and customers (DESIGN section 4).

Tokens are simplejwt tokens carrying `role` (`merchant` or `customer`) and `sub`
(the account's public id). Each account kind lives in its own app; that app
registers a loader for its role in `AppConfig.ready()`, so this module never imports
an app above it.
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from django.db import IntegrityError, transaction
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication
from rest_framework_simplejwt.exceptions import TokenError
from rest_framework_simplejwt.tokens import AccessToken, RefreshToken

from .models import UsedRefreshToken

ROLE_MERCHANT = "merchant"
ROLE_CUSTOMER = "customer"

_loaders: dict[str, Callable[[str], object | None]] = {}


def register_principal(role: str, loader: Callable[[str], object | None]) -> None:
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


def issue_tokens(*, role: str, public_id: str) -> dict[str, str]:
    refresh = RefreshToken()
    refresh["role"] = role
    refresh["sub"] = public_id
    return {"access": str(refresh.access_token), "refresh": str(refresh)}


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
        principal = _load(role, token.get("sub"))
        if principal is None:
            raise exceptions.AuthenticationFailed(
                "The access token's account does not exist."
            )
        return principal, JWTCredential(token=token, role=role)

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


def refresh_tokens(raw_refresh: str) -> dict[str, str]:
    """Exchange a refresh token for a new pair; each refresh token works once."""
    try:
        refresh = RefreshToken(raw_refresh)
    except TokenError:
        raise exceptions.AuthenticationFailed(
            "The refresh token is invalid or expired."
        ) from None
    role, public_id = refresh.get("role"), refresh.get("sub")
    if _load(role, public_id) is None:
        raise exceptions.AuthenticationFailed(
            "The refresh token's account does not exist."
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
    return issue_tokens(role=role, public_id=public_id)
