"""Processor events of endpoint 24 (`POST /api/v1/webhooks/paystack`).

The endpoint checks the signature, stores the raw request, replies 200 and hands
the stored row to a task (`paystack_inbound_process`). Each event is handled at
most once: a ProcessorEvent row (unique kind = event name, key = reference) is
written in the same transaction as what the event changes, so a duplicate finds
it and does nothing, and a failure leaves no row (the event can be handled
again). Nothing moves before the processor confirms the reference on a verify
call: `GET /transfer/verify/:reference` for transfers, `GET /transaction/verify/
:reference` for charges, `GET /refund/:id` for refunds.

Transfer events are handled by payouts (`payouts/services/transfer_events.py`),
refund events by `refund_events.py` (the refund handlers of gateway/hooks.py are
called from there); both are registered in payments/apps.py through
gateway/hooks.py. The sandbox settles its transfers and refunds, and the
bank transfers and USSD codes a test completes (`sandbox_offline.py`), by
feeding `processor_event_handle` the event a processor would send, so sandbox
and Paystack take exactly the same path.
"""

import json
import logging
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from config.api.errors import InvalidRequest

from ..hooks import ConfirmedCharge, charge_confirmation_handlers, event_handler
from ..models import InboundRequest, ProcessorEvent
from ..processors import Processor, get_processor, sandbox_processor

logger = logging.getLogger("payments.events")

CHARGE_SUCCESS = "charge.success"


class Source:
    WEBHOOK = "webhook"
    SANDBOX = "sandbox"


def event_processor(source: str) -> Processor:
    """The processor an event came from, which confirms it: a webhook comes
    from the live processor; an event the sandbox feeds in (its settlement
    passes, a test's completion) is the sandbox's, on every deployment (the
    test side's money moves there even when the live side's is Paystack)."""
    return sandbox_processor() if source == Source.SANDBOX else get_processor()


class NotSettled(RuntimeError):
    """The processor does not (yet) confirm what the event says."""


def event_already_handled(event: str, reference: str) -> bool:
    return ProcessorEvent.objects.filter(kind=event, key=reference).exists()


def event_record_once(
    *, event: str, reference: str, source: str, inbound, note: str = ""
) -> ProcessorEvent | None:
    """The event's row, or None when it was handled before (inside the caller's
    transaction, which also holds the change the event makes)."""
    try:
        with transaction.atomic():
            return ProcessorEvent.objects.create(
                kind=event,
                key=reference[:128],
                event=event,
                source=source,
                inbound=inbound,
                note=note[:255],
            )
    except IntegrityError:
        return None


def processor_event_handle(
    *, payload: dict, source: str, inbound: InboundRequest | None = None
) -> str:
    """Handle one processor event `{event, data}`: "handled", "duplicate" or
    "ignored: <why>". Raises when it cannot be handled now (the processor did
    not answer, or does not confirm the event yet)."""
    event, data = payload.get("event"), payload.get("data")
    if not isinstance(event, str) or not isinstance(data, dict):
        raise InvalidRequest(
            "The body must be a JSON object with 'event' (a string) and 'data' "
            "(an object)."
        )
    if event == CHARGE_SUCCESS:
        return _charge_success(event, data, source, inbound)
    handler = event_handler(event)
    if handler is not None:
        return handler(event=event, data=data, source=source, inbound=inbound)
    return "ignored: not an event this endpoint acts on"


def event_reference(data: dict, *names: str) -> str:
    for name in names:
        value = data.get(name)
        if isinstance(value, str) and "\x00" in value:
            raise InvalidRequest(f"data.{name} must not contain a NUL character.")
        if isinstance(value, str) and value.strip():
            return value.strip()
    raise InvalidRequest(f"data.{names[0]} (a string) is required for this event.")


def _charge_success(event, data, source, inbound) -> str:
    reference = event_reference(data, "reference")
    if event_already_handled(event, reference):
        return "duplicate"
    result = event_processor(source).verify_transaction(reference=reference)
    if result is None:
        return "ignored: the processor knows no transaction with this reference"
    if not result.succeeded:
        raise NotSettled(f"{event} for {reference}, but verify says {result.status}")
    confirmed = ConfirmedCharge(
        reference=reference,
        amount=result.amount,
        currency=result.currency,
        paid_at=result.paid_at,
        processor_id=result.processor_id,
        gateway_response=result.gateway_response,
        source=source,
        channel=result.channel,
    )
    with transaction.atomic(durable=True):
        row = event_record_once(
            event=event, reference=reference, source=source, inbound=inbound
        )
        if row is None:
            return "duplicate"
        handlers = charge_confirmation_handlers()
        claimed = [
            getattr(handler, "__qualname__", repr(handler))
            for handler in handlers
            if handler(confirmed)
        ]
        if not handlers:
            row.note = "no charge confirmation handler is registered"
        elif not claimed:
            row.note = "no handler knows this reference"
        else:
            row.note = f"confirmed by {', '.join(claimed)}"[:255]
        row.save(update_fields=["note"])
    return "handled"


def paystack_inbound_process(*, inbound_id: int) -> str:
    """The task behind endpoint 24: handle a stored, signature-checked request
    and write the outcome (or the error) on its row."""
    inbound = InboundRequest.objects.get(pk=inbound_id)
    try:
        payload = json.loads(bytes(inbound.body))
        outcome = processor_event_handle(
            payload=payload, source=Source.WEBHOOK, inbound=inbound
        )
    except InvalidRequest as error:
        # The event lacks what its kind needs (a reference): asking again can
        # never help, so the outcome is final and the retry pass skips it.
        inbound.error = f"{type(error).__name__}: {error}"[:2000]
        inbound.outcome = f"refused: {error}"[:255]
        inbound.processed_at = timezone.now()
        inbound.save(update_fields=["error", "outcome", "processed_at"])
        logger.warning("Paystack event %s refused: %s", inbound.pk, error)
        return inbound.outcome
    except Exception as error:
        inbound.error = f"{type(error).__name__}: {error}"[:2000]
        inbound.processed_at = None
        inbound.save(update_fields=["error", "processed_at"])
        logger.warning("Paystack event %s not handled: %s", inbound.pk, error)
        raise
    inbound.outcome = outcome[:255]
    inbound.error = ""
    inbound.processed_at = timezone.now()
    inbound.save(update_fields=["outcome", "error", "processed_at"])
    return outcome


def sandbox_transfer_settle(*, reference: str) -> str:
    """The sandbox's processor settles a transfer and sends its event (a
    payout made on the sandbox: any payout of a sandbox deployment, a test
    side's on every deployment)."""
    processor = sandbox_processor()
    result = processor.verify_transfer(reference=reference)
    if result is None or not result.conclusive:
        return "ignored: not settled"
    event = {"success": "transfer.success", "reversed": "transfer.reversed"}.get(
        result.status, "transfer.failed"
    )
    return processor_event_handle(
        payload={
            "event": event,
            "data": {
                "reference": result.reference,
                "amount": result.amount,
                "status": result.status,
                "transfer_code": result.transfer_code,
                "reason": result.reason,
            },
        },
        source=Source.SANDBOX,
    )


def paystack_events_retry(
    *,
    older_than: timedelta = timedelta(minutes=5),
    within: timedelta = timedelta(days=3),
) -> int:
    """Handle again the signed events that have no outcome yet: their task was
    lost, or it failed (the processor did not answer, or did not confirm yet).
    Safe: an event already handled is found by its unique row."""
    now = timezone.now()
    waiting = (
        InboundRequest.objects.filter(
            endpoint=InboundRequest.Endpoint.PAYSTACK,
            signature_valid=True,
            outcome="",
            received_at__lte=now - older_than,
            received_at__gte=now - within,
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    handled = 0
    for inbound_id in waiting:
        try:
            paystack_inbound_process(inbound_id=inbound_id)
        except Exception:
            # Recorded on the row (and logged); the next pass tries again.
            logger.info("Paystack event %s still not handled", inbound_id)
        else:
            handled += 1
    return handled
