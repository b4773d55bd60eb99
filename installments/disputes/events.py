"""The payloads of the dispute events (docs/webhooks.md): `dispute.created`,
`dispute.updated`, `dispute.won`, `dispute.lost`, each once per fact."""

from config.api.formats import iso_utc

from ..plans.events import Event
from .models import Dispute

CREATED = "dispute.created"
UPDATED = "dispute.updated"
WON = "dispute.won"
LOST = "dispute.lost"


def dispute_payload(dispute: Dispute) -> dict:
    plan = dispute.plan
    return {
        "resourceType": "dispute",
        "resourceId": dispute.public_id,
        "paymentPlanId": plan.public_id,
        "orderReference": plan.order_reference,
        "installmentId": (
            dispute.installment.public_id if dispute.installment_id else None
        ),
        "collectionReference": dispute.collection_reference,
        "amount": dispute.amount,
        "amountHeld": dispute.amount_held,
        "currency": dispute.currency,
        "reason": dispute.reason,
        "status": dispute.status,
        "dueAt": iso_utc(dispute.due_at),
        "resolvedAt": iso_utc(dispute.resolved_at),
    }


def dispute_event(name: str, dispute: Dispute) -> Event:
    return (name, dispute_payload(dispute))
