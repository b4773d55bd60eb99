"""The registry through which higher apps react to a processor revocation.

A lower app never imports a higher one (DESIGN section 1): `installments`
registers its handler here in its AppConfig.ready():

    from payments.methods.hooks import register_revocation_handler
    register_revocation_handler(scores.on_payment_method_revoked)
"""

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class RevokedPaymentMethod:
    """A payment method the processor (bank or card issuer) has withdrawn."""

    customer_pk: int
    customer_id: str  # cus_...
    payment_method_pk: int
    payment_method_id: str  # pm_...
    revoked_at: datetime
    event: str  # e.g. "mandate.cancelled"
    source: str  # "webhook", "poll" or "charge_failure"


RevocationHandler = Callable[[RevokedPaymentMethod], None]

_revocation_handlers: list[RevocationHandler] = []


def register_revocation_handler(handler: RevocationHandler) -> None:
    """Called once per revoked method, inside the transaction that deactivates
    it: an exception rolls the revocation back, so a redelivery retries it."""
    if handler not in _revocation_handlers:
        _revocation_handlers.append(handler)


def unregister_revocation_handler(handler: RevocationHandler) -> None:
    if handler in _revocation_handlers:
        _revocation_handlers.remove(handler)


def notify_revocation(revoked: RevokedPaymentMethod) -> None:
    for handler in tuple(_revocation_handlers):
        handler(revoked)
