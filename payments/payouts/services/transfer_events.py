"""The processor's transfer events (`transfer.success`, `transfer.failed`,
`transfer.reversed`; endpoint 24, or the sandbox's own settlement): a payout's
outcome. Registered with the gateway in payments/apps.py.

As for every processor event, nothing moves before the processor confirms it on
`GET /transfer/verify/:reference`, and the ProcessorEvent row written in the
same transaction as the outcome makes it take effect once.
"""

from django.db import transaction

from ...gateway.models import InboundRequest
from ...gateway.processors import processor_for
from ...gateway.services.processor_events import (
    NotSettled,
    event_already_handled,
    event_record_once,
    event_reference,
)
from ..models import Payout
from .payouts import payout_outcome_apply

TRANSFER_EVENTS = frozenset(
    {"transfer.success", "transfer.failed", "transfer.reversed"}
)


def transfer_event_handle(
    *, event: str, data: dict, source: str, inbound: InboundRequest | None
) -> str:
    reference = event_reference(data, "reference")
    if event_already_handled(event, reference):
        return "duplicate"
    payout = Payout.objects.filter(public_id=reference).first()
    if payout is None:
        return "ignored: no payout has this reference"
    # Verified where the payout was made (a test side's at the sandbox), the
    # event being only the news that it moved.
    processor = processor_for(payout.processor)
    if processor is None:
        return "ignored: the payout was made on a processor no longer in use"
    result = processor.verify_transfer(reference=reference)
    if result is None:
        return "ignored: the processor knows no transfer with this reference"
    if not result.conclusive:
        raise NotSettled(
            f"{event} for {reference}, but the processor says {result.status}"
        )
    with transaction.atomic(durable=True):
        row = event_record_once(
            event=event,
            reference=reference,
            source=source,
            inbound=inbound,
            note=f"verified {result.status}",
        )
        if row is None:
            return "duplicate"
        outcome = payout_outcome_apply(payout_id=payout.pk, result=result)
        row.note = f"verified {result.status}: payout {outcome}"[:255]
        row.save(update_fields=["note"])
    return "handled"
