"""The plan as the API shows it (DESIGN section 11): the representation every
endpoint answering a plan shares, whose refunds and reschedules parts their
features fill in (hooks.py), and the plans' list queries."""

from rest_framework import serializers

from config.api.formats import iso_date, iso_utc
from config.api.serializers import (
    IsoDateField,
)

from . import hooks, selectors
from .models import Installment


class PlanListQuery(serializers.Serializer):
    """Query parameters (`limit`/`offset` are the paginator's)."""

    order_reference = serializers.CharField(max_length=100, required=False)


class InstallmentListQuery(serializers.Serializer):
    """`?due_from=&due_to=` (dates, both included; a range that ends before it
    starts matches nothing) and `?status=`."""

    due_from = IsoDateField(required=False)
    due_to = IsoDateField(required=False)
    status = serializers.ChoiceField(choices=Installment.Status.choices, required=False)


def installment_output(installment) -> dict:
    """An installment; its side is its plan's (the plan and its merchant are
    loaded with it by every query that lists installments)."""
    return {
        "id": installment.public_id,
        "livemode": installment.plan.merchant.livemode,
        "sequence": installment.sequence,
        "amount": installment.amount,
        "original_amount": installment.original_amount,
        "amount_paid": installment.amount_collected,
        "due_date": iso_date(installment.due_date),
        "status": installment.status,
        "attempts": installment.attempts,
        "paid_at": iso_utc(installment.paid_at),
    }


def plan_output(plan) -> dict:
    """DESIGN section 11's plan representation (snake_case)."""
    return {
        "id": plan.public_id,
        "status": plan.status,
        "merchant_id": plan.merchant.api_id,
        "livemode": plan.merchant.livemode,
        "customer_id": plan.customer.public_id,
        "order_reference": plan.order_reference,
        "currency": plan.currency,
        "total_amount": plan.total_amount,
        "deposit_amount": plan.deposit_amount,
        "amount_paid": selectors.amount_paid(plan),
        "amount_remaining": selectors.amount_remaining(plan),
        "amount_refunded": plan.amount_refunded,
        "amount_refund_pending": hooks.amount_refund_pending(plan),
        "schedule_type": plan.schedule_type,
        "installment_count": plan.installment_count,
        "preferred_day": plan.payday,
        "collection": plan.collection,
        "installments": [
            installment_output(installment) for installment in plan.installments.all()
        ],
        # `refunds`, `reschedules`, `customer_reschedules_left`: their features'.
        **hooks.plan_output_parts(plan),
        "created_at": iso_utc(plan.created_at),
    }
