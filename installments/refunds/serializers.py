"""HTTP in/out for plan refunds (DESIGN section 14), and the refunds part of
the plan representation (registered in installments/apps.py)."""

from django.db.models import Prefetch

from config.api.formats import iso_utc
from config.api.serializers import (
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
)
from config.text import no_control_characters

from ..plans.rules import MAX_AMOUNT
from .models import Refund, RefundPart

REASON_MAX_LENGTH = 255


class RefundCreateInput(StrictSerializer):
    amount = StrictIntegerField(
        min_value=1,
        max_value=MAX_AMOUNT,
        help_text="Kobo to take off the order: first off its unpaid installments, "
        "the rest paid back in money.",
    )
    # The customer reads it in the notice of change (DESIGN section 18).
    reason = StrictCharField(
        max_length=REASON_MAX_LENGTH, validators=[no_control_characters]
    )


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
        # The plan's side (its merchant is loaded with it, the refund's own
        # merchant is not: the same row).
        "livemode": refund.plan.merchant.livemode,
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


def plan_refunds_part(plan) -> dict:
    """The plan representation's `refunds`, newest first."""
    return {"refunds": [refund_output(refund) for refund in plan.refunds.all()]}


def plan_refunds_prefetch() -> Prefetch:
    """What `plan_refunds_part` reads: the refunds newest first, with their parts."""
    return Prefetch(
        "refunds",
        queryset=Refund.objects.order_by("-created_at", "-id").prefetch_related(
            Prefetch("parts", queryset=RefundPart.objects.order_by("number"))
        ),
    )
