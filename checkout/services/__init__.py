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
    "SESSION_LIFETIME",
    "STALE_ATTEMPT_AGE",
    "SUPPORTED_CURRENCIES",
    "SessionAnswer",
    "abandoned_plans_cancel",
    "idempotency_records_purge",
    "payment_link_create",
    "payment_link_session_open",
    "payment_link_toggle",
    "session_complete",
    "session_create",
    "stale_attempt_settle",
    "stale_attempts_settle",
]
