from rest_framework import serializers

from config.api.formats import iso_date, iso_utc
from config.api.serializers import (
    IsoDateField,
    StrictBooleanField,
    StrictCharField,
    StrictSerializer,
)

from . import selectors
from .models import Installment
from .refunds.serializers import refund_output


class RescheduleInput(StrictSerializer):
    """`{due_date}`: the installment's new due date (Lagos, YYYY-MM-DD)."""

    due_date = IsoDateField()


class PlanListQuery(serializers.Serializer):
    """Query parameters (`limit`/`offset` are the paginator's)."""

    order_reference = serializers.CharField(max_length=100, required=False)


class InstallmentListQuery(serializers.Serializer):
    """`?due_from=&due_to=` (dates, both included; a range that ends before it
    starts matches nothing) and `?status=`."""

    due_from = IsoDateField(required=False)
    due_to = IsoDateField(required=False)
    status = serializers.ChoiceField(choices=Installment.Status.choices, required=False)


class PayEarlyInput(StrictSerializer):
    """`{installment_id}` pays one installment, `{payoff: true}` everything left;
    `payment_method_id` chooses the method (the default otherwise)."""

    installment_id = StrictCharField(max_length=40, required=False)
    payoff = StrictBooleanField(required=False)
    payment_method_id = StrictCharField(max_length=40, required=False)

    def validate(self, data):
        if data.get("payoff", False) == ("installment_id" in data):
            raise serializers.ValidationError(
                "Send installment_id to pay one installment, or payoff: true to pay "
                "everything left (not both)."
            )
        return data


class AdvanceInput(StrictSerializer):
    """`{to}`: the Lagos date the sandbox clock runs a plan to (its bounds are
    the plan's: checked by the service, 422)."""

    to = IsoDateField()


def installment_output(installment) -> dict:
    return {
        "id": installment.public_id,
        "sequence": installment.sequence,
        "amount": installment.amount,
        "original_amount": installment.original_amount,
        "amount_paid": installment.amount_collected,
        "due_date": iso_date(installment.due_date),
        "status": installment.status,
        "attempts": installment.attempts,
        "paid_at": iso_utc(installment.paid_at),
    }


def reschedule_output(reschedule) -> dict:
    return {
        "installment_id": reschedule.installment.public_id,
        "sequence": reschedule.installment.sequence,
        "previous_due_date": iso_date(reschedule.from_date),
        "due_date": iso_date(reschedule.to_date),
        "rescheduled_by": reschedule.by,
        "created_at": iso_utc(reschedule.created_at),
    }


def plan_output(plan) -> dict:
    """DESIGN section 11's plan representation (snake_case)."""
    return {
        "id": plan.public_id,
        "status": plan.status,
        "merchant_id": plan.merchant.public_id,
        "customer_id": plan.customer.public_id,
        "order_reference": plan.order_reference,
        "currency": plan.currency,
        "total_amount": plan.total_amount,
        "deposit_amount": plan.deposit_amount,
        "amount_paid": selectors.amount_paid(plan),
        "amount_remaining": selectors.amount_remaining(plan),
        "amount_refunded": plan.amount_refunded,
        "amount_refund_pending": selectors.amount_refund_pending(plan),
        "schedule_type": plan.schedule_type,
        "installment_count": plan.installment_count,
        "preferred_day": plan.payday,
        "installments": [
            installment_output(installment) for installment in plan.installments.all()
        ],
        "refunds": [refund_output(refund) for refund in plan.refunds.all()],
        "reschedules": [reschedule_output(row) for row in plan.reschedules.all()],
        "customer_reschedules_left": selectors.customer_reschedules_left(plan),
        "created_at": iso_utc(plan.created_at),
    }
