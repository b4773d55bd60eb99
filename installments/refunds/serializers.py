"""HTTP in/out for plan refunds and cancellation (DESIGN section 14)."""

from config.api.formats import iso_utc
from config.api.serializers import (
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)

from ..rules import MAX_AMOUNT

REASON_MAX_LENGTH = 255


class RefundCreateInput(StrictSerializer):
    amount = StrictIntegerField(
        min_value=1,
        max_value=MAX_AMOUNT,
        help_text="Kobo to take off the order: first off its unpaid installments, "
        "the rest paid back in money.",
    )
    reason = StrictCharField(max_length=REASON_MAX_LENGTH)


class PlanCancelInput(StrictSerializer):
    reason = StrictCharField(max_length=REASON_MAX_LENGTH)


def refund_part_output(part) -> dict:
    return {
        "reference": part.reference,
        "collection_reference": part.collection_reference,
        "amount": part.amount,
        "status": part.status,
    }


def refund_output(refund) -> dict:
    """DESIGN section 14's refund representation (snake_case), saying what the
    refund really did (docs/refunds.md): `amount` = `amount_reduced` +
    `amount_returned` (its money not failed, `amount_pending` of it still on its
    way); `amount_requested` = `amount` + `amount_failed`."""
    return {
        "id": refund.public_id,
        "payment_plan_id": refund.plan.public_id,
        "amount": refund.amount,
        "amount_requested": refund.amount_requested,
        "amount_reduced": refund.amount_reduced,
        "amount_returned": refund.amount_returned,
        "amount_pending": refund.amount_pending,
        "amount_failed": refund.amount_failed,
        "reason": refund.reason,
        "status": refund.status,
        "parts": [refund_part_output(part) for part in refund.parts.all()],
        "created_at": iso_utc(refund.created_at),
    }
