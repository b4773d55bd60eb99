"""Refund events of endpoint 24, and the sandbox's settlement pass that sends them.

Paystack sends `refund.pending`, `refund.processing`, `refund.processed`,
`refund.failed` and `refund.needs-attention` naming the refunded transaction's
reference and, not always, the refund's id. Nothing is believed from the event:
the refund (without an id, each refund of the transaction) is re-read with
`GET /refund/:id`, and what that says is handed to the refund handlers
(payments/gateway/hooks.py) once per event and refund: a ProcessorEvent row
(kind = the event, key = the refund's id) is written in the same transaction. An
event saying a refund is processed (or failed) while the processor says it is
still on its way changes nothing and is handled again later (NotSettled, as for
a `charge.success` that verify does not confirm).

The handler is registered for these events in payments/apps.py (the events of
endpoint 24 other than `charge.success` all reach their handler that way).
"""

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from ..models import InboundRequest
from ..processors import RefundResult, sandbox_processor
from .processor_events import (
    NotSettled,
    Source,
    event_already_handled,
    event_processor,
    event_record_once,
    event_reference,
    processor_event_handle,
)
from .refunds import (
    RefundOutcome,
    RefundStatus,
    refund_outcome_dispatch,
    refund_status_normalize,
    refunds_verified,
)

logger = logging.getLogger("payments.events")

REFUND_EVENTS = (
    "refund.pending",
    "refund.processing",
    "refund.processed",
    "refund.failed",
    "refund.needs-attention",
)
# Paystack retries an undelivered event for 72 hours; the sandbox as long.
SANDBOX_ANNOUNCE_WITHIN = timedelta(days=3)


def _transaction_reference(data: dict) -> str:
    nested = data.get("transaction")
    if isinstance(nested, dict):
        reference = nested.get("reference")
        if isinstance(reference, str) and reference.strip() and "\x00" not in reference:
            return reference.strip()
    return event_reference(data, "transaction_reference")


def _refund_id(data: dict) -> str:
    value = data.get("id")
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return str(value)
    if isinstance(value, str) and value.strip() and "\x00" not in value:
        return value.strip()[:64]
    return ""


def _key(outcome: RefundOutcome) -> str:
    return outcome.refund_id or f"{outcome.transaction_reference}:{outcome.reference}"


def _words(outcomes: list[RefundOutcome]) -> str:
    return ", ".join(sorted({outcome.processor_status for outcome in outcomes}))


def refund_event_handle(
    *, event: str, data: dict, source: str, inbound: InboundRequest | None = None
) -> str:
    """One `refund.*` event: "handled", "duplicate" or "ignored: <why>"; raises
    NotSettled when the processor does not confirm it (yet)."""
    transaction_reference = _transaction_reference(data)
    claimed = refund_status_normalize(event.removeprefix("refund."))
    outcomes = refunds_verified(
        transaction_reference=transaction_reference,
        refund_id=_refund_id(data),
        processor=event_processor(source),
    )
    if not outcomes:
        return "ignored: the processor knows no such refund"
    fresh = [o for o in outcomes if not event_already_handled(event, _key(o))]
    if claimed in RefundStatus.FINAL:
        on_its_way = any(not outcome.final for outcome in outcomes)
        confirmed = [o for o in outcomes if o.status == claimed]
        fresh = [o for o in fresh if o.status == claimed]
        if not fresh and on_its_way:
            # The refund the event is about may be one the processor does not
            # show as settled yet: nothing changes, and the event is tried again.
            raise NotSettled(
                f"{event} for {transaction_reference}, but the processor says "
                f"{_words(outcomes)}"
            )
        if not confirmed:
            return f"ignored: the processor says the refund is {_words(outcomes)}"
    if not fresh:
        return "duplicate"
    return _dispatch(event, fresh, source, inbound)


def _dispatch(event, outcomes, source, inbound) -> str:
    handled = 0
    with transaction.atomic(durable=True):
        for outcome in outcomes:
            row = event_record_once(
                event=event, reference=_key(outcome), source=source, inbound=inbound
            )
            if row is None:
                continue
            claimed_by = refund_outcome_dispatch(outcome)
            settled = (
                f"settled by {', '.join(claimed_by)}"
                if claimed_by
                else "no refund handler knows this refund"
            )
            row.note = f"{outcome.processor_status}: {settled}"[:255]
            row.save(update_fields=["note"])
            handled += 1
    return "handled" if handled else "duplicate"


def _sandbox_event(result: RefundResult) -> dict:
    """The event Paystack would send (reference/paystack.md), with the id."""
    return {
        "event": f"refund.{result.status}",
        "data": {
            "id": result.refund_id,
            "status": result.status,
            "transaction_reference": result.transaction_reference,
            "refund_reference": None,
            "amount": str(result.amount),
            "currency": result.currency,
            "merchant_note": result.merchant_note,
        },
    }


def sandbox_refunds_settle() -> int:
    """The sandbox's settlement pass (every minute): its pending refunds become
    processed, and each settled refund's event (`refund.processed`,
    `refund.failed`) goes the way a Paystack event goes, re-verified and handed
    to the refund handlers once. Returns how many events were handled."""
    # The sandbox's refunds: every refund of a sandbox deployment, and the test
    # side's on every deployment.
    processor = sandbox_processor()
    processor.refunds_settle()
    announced = 0
    since = timezone.now() - SANDBOX_ANNOUNCE_WITHIN
    for result in processor.refunds_unannounced(since=since):
        try:
            processor_event_handle(
                payload=_sandbox_event(result), source=Source.SANDBOX
            )
        except Exception as error:
            # As Paystack retries a webhook: the next pass sends it again.
            logger.warning("Sandbox refund %s not handled: %s", result.refund_id, error)
            continue
        processor.refund_announced(refund_id=result.refund_id)
        announced += 1
    return announced
