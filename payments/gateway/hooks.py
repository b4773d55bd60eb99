"""Registries through which what sits above the gateway acts on what the
processor sends. A lower app never imports a higher one (DESIGN section 1), and
inside payments the gateway sits below `methods` and `payouts`; they register
their handlers in payments/apps.py, higher apps in their own AppConfig.ready():

    from payments.gateway.hooks import register_charge_confirmation_handler
    register_charge_confirmation_handler(confirmations.installment_charge_confirm)

Four registries:
- charge confirmations: the processor's `charge.success` (endpoint 24), verified,
  for a charge a higher app left pending (installments);
- refunds: where a refund stands, learned from the processor (endpoint 24's
  `refund.*` events re-verified with `GET /refund/:id`, the sandbox's settlement
  pass, the poll `processor_refund_check`); the verification-charge refunds of
  the gateway itself are one handler, the plans' refunds (installments) another;
- processor events: other events of endpoint 24, handled by a subpackage above
  (payouts: `transfer.success`, `transfer.failed`, `transfer.reversed`) or by
  the gateway's own `services/refund_events.py` (`refund.*`);
- inbound endpoints: what a signed request of an endpoint other than 24 does
  (endpoint 25: revocations, handled by `payments.methods`).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

# Charge confirmations -----------------------------------------------------------


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
    source: str  # "webhook" or "sandbox"
    # The PayChannel the money came by (card, bank_account, bank_transfer,
    # ussd), as verified; "" when the processor did not say.
    channel: str = ""


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


# Refunds ------------------------------------------------------------------------


class RefundStatus:
    """A refund's status, normalized from the processor's own word."""

    PENDING = "pending"
    PROCESSED = "processed"
    FAILED = "failed"

    FINAL = frozenset({PROCESSED, FAILED})


def refund_status_normalize(processor_status: str) -> str:
    """Paystack's `pending`, `processing` and `needs-attention` (and any word it
    may add) are still on their way: `pending`; `processed` and `failed` are final."""
    if processor_status in RefundStatus.FINAL:
        return processor_status
    return RefundStatus.PENDING


@dataclass(frozen=True)
class RefundOutcome:
    reference: str  # OUR part reference, e.g. "rf_abc_1" ("" if none)
    transaction_reference: str  # the collection's processor reference refunded
    refund_id: str  # the processor's id of the refund ("" if unknown)
    amount: int  # kobo
    status: str  # "pending" | "processed" | "failed"  (normalized)
    processor_status: str  # the processor's own word (pending, processing, ...)

    @property
    def final(self) -> bool:
        return self.status in RefundStatus.FINAL


# Called with a refund's verified state (its `status` normalized to pending,
# processed or failed); returns True when the refund is one of the handler's own
# (it then recorded the state, or found it recorded already), False otherwise.
# Called inside a transaction: an exception rolls back what every handler did,
# and the gateway tries again later. A handler must be idempotent and never move
# a refund back from processed or failed.
RefundHandler = Callable[[RefundOutcome], bool]

_refund_handlers: list[RefundHandler] = []


def register_refund_handler(handler: RefundHandler) -> None:
    if handler not in _refund_handlers:
        _refund_handlers.append(handler)


def unregister_refund_handler(handler: RefundHandler) -> None:
    if handler in _refund_handlers:
        _refund_handlers.remove(handler)


def refund_handlers() -> tuple[RefundHandler, ...]:
    return tuple(_refund_handlers)


# Processor events (endpoint 24) ---------------------------------------------------

# `handler(*, event, data, source, inbound)` handles one event named `event`
# (its `data` object, where it came from, the stored request or None) and
# returns the outcome: "handled", "duplicate" or "ignored: <why>". It raises
# when the event cannot be handled now (it is then handled again later).
EventHandler = Callable[..., str]

_event_handlers: dict[str, EventHandler] = {}


def register_event_handler(events: Iterable[str], handler: EventHandler) -> None:
    for event in events:
        _event_handlers[event] = handler


def event_handler(event: str) -> EventHandler | None:
    return _event_handlers.get(event)


# Inbound endpoints ------------------------------------------------------------------

# `handler(*, inbound, payload)` acts on a signed, stored request (its JSON
# object) and returns the short outcome the endpoint answers and records.
InboundHandler = Callable[..., str]

_inbound_handlers: dict[str, InboundHandler] = {}


def register_inbound_handler(endpoint: str, handler: InboundHandler) -> None:
    _inbound_handlers[endpoint] = handler


def inbound_handler(endpoint: str) -> InboundHandler:
    return _inbound_handlers[endpoint]
