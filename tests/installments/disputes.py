"""Disputes made the way the processor makes them (DESIGN section 19): the
sandbox opens or decides one, and its event goes through endpoint 24's
handling, as Paystack's webhook would."""

from installments.disputes.models import Dispute
from payments.gateway.processors import get_processor
from payments.gateway.services.processor_events import processor_event_handle
from payments.ledger.models import LedgerTransaction

# A dispute's representation (`GET /api/v1/disputes/{id}`, the sandbox's
# resolve call): its fields.
DISPUTE_FIELDS = {
    "id",
    "payment_plan_id",
    "livemode",
    "collection_reference",
    "installment_id",
    "amount",
    "amount_held",
    "currency",
    "reason",
    "status",
    "due_at",
    "evidence",
    "created_at",
    "responded_at",
    "resolved_at",
}


def deposit_reference(plan) -> str:
    """The processor reference of the plan's deposit collection."""
    return (
        LedgerTransaction.objects.filter(
            kind="collection", resource_type="payment_plan", resource_id=plan.public_id
        )
        .values_list("processor_reference", flat=True)
        .get()
    )


def announce(event: str, dispute_id: str) -> str:
    return processor_event_handle(
        payload={"event": event, "data": {"id": dispute_id}}, source="sandbox"
    )


def dispute_open(reference: str) -> Dispute:
    """The customer's bank disputes the collection of `reference`; its
    `charge.dispute.create` is handled."""
    found = get_processor().dispute_open(transaction_reference=reference)
    outcome = announce("charge.dispute.create", found.dispute_id)
    assert outcome in ("handled", "duplicate"), outcome
    return Dispute.objects.get(processor_dispute_id=found.dispute_id)


def dispute_decide(dispute: Dispute, *, won: bool) -> Dispute:
    """The bank decides; `charge.dispute.resolve` is handled."""
    get_processor().dispute_decide(dispute_id=dispute.processor_dispute_id, won=won)
    announce("charge.dispute.resolve", dispute.processor_dispute_id)
    dispute.refresh_from_db()
    return dispute
