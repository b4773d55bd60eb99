"""Registries through which higher apps react to what happens in payments.

A lower app never imports a higher one (DESIGN section 1): `installments`
registers its handlers here in its AppConfig.ready(), e.g.

    from payments.hooks import register_revocation_handler
    register_revocation_handler(scores.on_payment_method_revoked)

Three registries:
- revocations: a processor withdrew a payment method;
- charge confirmations: the processor's `charge.success` (endpoint 24), verified,
  for a charge a higher app left pending;
- ledger checks: invariants `python manage.py check_ledger` verifies besides the
  ledger's own (e.g. "each paid installment has exactly one collection").
"""

from collections.abc import Callable, Iterable
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


# Charge confirmations ---------------------------------------------------------


@dataclass(frozen=True)
class ConfirmedCharge:
    """A charge the processor reported (`charge.success`) and then confirmed on
    `GET /transaction/verify/:reference`: the amounts are the verified ones."""

    reference: str
    amount: int  # kobo
    currency: str
    paid_at: datetime | None
    processor_id: str
    gateway_response: str
    source: str  # "webhook"


# Returns True when the reference is one of the handler's own charges (it then
# confirmed it, or found it confirmed already), False when it is not its own.
ChargeConfirmationHandler = Callable[[ConfirmedCharge], bool]

_charge_confirmation_handlers: list[ChargeConfirmationHandler] = []


def register_charge_confirmation_handler(handler: ChargeConfirmationHandler) -> None:
    """Called inside the transaction that records the processor event as
    handled: an exception rolls both back, so the event can be handled again."""
    if handler not in _charge_confirmation_handlers:
        _charge_confirmation_handlers.append(handler)


def unregister_charge_confirmation_handler(
    handler: ChargeConfirmationHandler,
) -> None:
    if handler in _charge_confirmation_handlers:
        _charge_confirmation_handlers.remove(handler)


def charge_confirmation_handlers() -> tuple[ChargeConfirmationHandler, ...]:
    return tuple(_charge_confirmation_handlers)


# Ledger checks ------------------------------------------------------------------


# A check yields one readable sentence per breach found (nothing when clean).
LedgerCheck = Callable[[], Iterable[str]]


@dataclass(frozen=True)
class NamedLedgerCheck:
    name: str
    check: LedgerCheck


_ledger_checks: dict[str, NamedLedgerCheck] = {}


def register_ledger_check(check: LedgerCheck, *, name: str | None = None) -> None:
    """Add an invariant to `check_ledger`; registering a name again replaces it."""
    name = name or getattr(check, "__name__", repr(check))
    _ledger_checks[name] = NamedLedgerCheck(name=name, check=check)


def unregister_ledger_check(name: str) -> None:
    _ledger_checks.pop(name, None)


def ledger_checks() -> tuple[NamedLedgerCheck, ...]:
    return tuple(_ledger_checks.values())
