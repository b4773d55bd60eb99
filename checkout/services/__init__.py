"""Use-cases of the checkout app, one module per concern."""

from .completion import (
    STALE_ATTEMPT_AGE,
    abandoned_plans_cancel,
    session_complete,
    stale_attempt_settle,
    stale_attempts_settle,
)
from .links import (
    payment_link_create,
    payment_link_session_open,
    payment_link_toggle,
)
from .offline import (
    OFFLINE_DEPOSIT_LIFETIME,
    deposit_offline_by_public_id,
    deposit_offline_confirm,
    deposit_offline_start,
    deposits_offline_expire,
)
from .sessions import (
    IDEMPOTENCY_RETENTION,
    SESSION_LIFETIME,
    SUPPORTED_CURRENCIES,
    SessionAnswer,
    idempotency_records_purge,
    session_create,
)

__all__ = [
    "IDEMPOTENCY_RETENTION",
    "OFFLINE_DEPOSIT_LIFETIME",
    "SESSION_LIFETIME",
    "STALE_ATTEMPT_AGE",
    "SUPPORTED_CURRENCIES",
    "SessionAnswer",
    "abandoned_plans_cancel",
    "deposit_offline_by_public_id",
    "deposit_offline_confirm",
    "deposit_offline_start",
    "deposits_offline_expire",
    "idempotency_records_purge",
    "payment_link_create",
    "payment_link_session_open",
    "payment_link_toggle",
    "session_complete",
    "session_create",
    "stale_attempt_settle",
    "stale_attempts_settle",
]
