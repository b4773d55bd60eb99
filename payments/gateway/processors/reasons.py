"""A processor's free-text reply read as a FailureReason (Paystack says why a
charge failed only in words)."""

from .base import FailureReason

_REVOKED_HINTS = (
    "authorization code is invalid",
    "invalid authorization",
    "authorization is invalid",
    "authorization has been revoked",
    "authorization revoked",
    "authorization is inactive",
    "authorization not active",
    "authorization has been deactivated",
    "mandate has been cancelled",
    "mandate cancelled",
    "mandate is not active",
    "no longer valid",
)
# A bank account that cannot be debited at all (closed, unknown).
_INVALID_ACCOUNT_HINTS = (
    "invalid account",
    "account is invalid",
    "account not found",
    "account does not exist",
    "account closed",
    "account has been closed",
    "account is closed",
)


def failure_reason_from_text(text: str) -> str:
    """Map a processor's free-text reply onto a FailureReason."""
    lowered = (text or "").lower()
    if any(hint in lowered for hint in _REVOKED_HINTS):
        return FailureReason.AUTHORIZATION_REVOKED
    if any(hint in lowered for hint in _INVALID_ACCOUNT_HINTS):
        return FailureReason.INVALID_ACCOUNT
    if "insufficient" in lowered:
        return FailureReason.INSUFFICIENT_FUNDS
    if "expired" in lowered:
        return FailureReason.CARD_EXPIRED
    if "do not honor" in lowered or "do not honour" in lowered:
        return FailureReason.DO_NOT_HONOR
    return FailureReason.DECLINED
