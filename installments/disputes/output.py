"""A dispute as the API answers it (`GET /api/v1/disputes/{id}`, and the
sandbox's resolve call)."""

from config.api.formats import iso_utc

from .models import Dispute


def dispute_output(dispute: Dispute) -> dict:
    return {
        "id": dispute.public_id,
        "payment_plan_id": dispute.plan.public_id,
        "collection_reference": dispute.collection_reference,
        "installment_id": (
            dispute.installment.public_id if dispute.installment_id else None
        ),
        "amount": dispute.amount,
        "amount_held": dispute.amount_held,
        "currency": dispute.currency,
        "reason": dispute.reason,
        "status": dispute.status,
        "due_at": iso_utc(dispute.due_at),
        "created_at": iso_utc(dispute.created_at),
        "responded_at": iso_utc(dispute.responded_at),
        "resolved_at": iso_utc(dispute.resolved_at),
    }
