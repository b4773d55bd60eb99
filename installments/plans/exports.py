"""The CSV columns of the plans and the installments due in a range
(config.exports; docs/dashboard.md, "Exports"). Each row is the API's output
of the plan or installment, flattened, so the CSV and the JSON agree."""

from config.api.formats import iso_date
from config.exports import CsvExport, output_columns

from . import selectors
from .serializers import installment_output, plan_output


def plan_row(plan) -> dict:
    """A plan as its CSV row shows it: the API's fields without the nested
    lists, and the due date of the next payment."""
    upcoming = selectors.next_due_installment(plan)
    return {
        **plan_output(plan),
        "next_due_date": iso_date(upcoming.due_date) if upcoming else None,
    }


def installment_row(installment) -> dict:
    plan = installment.plan
    return {
        **installment_output(installment),
        "payment_plan_id": plan.public_id,
        "order_reference": plan.order_reference,
        "customer_id": plan.customer.public_id,
        "currency": installment.currency,
        "last_failure_reason": installment.last_failure_reason,
        "processor_reference": installment.processor_reference,
    }


PLANS = CsvExport(
    "plans",
    output_columns(
        "id",
        "created_at",
        "order_reference",
        "customer_id",
        "status",
        "currency",
        "total_amount",
        "deposit_amount",
        "amount_paid",
        "amount_remaining",
        "amount_refunded",
        "amount_refund_pending",
        "schedule_type",
        "installment_count",
        "next_due_date",
        "livemode",
        money=(
            "total_amount",
            "deposit_amount",
            "amount_paid",
            "amount_remaining",
            "amount_refunded",
            "amount_refund_pending",
        ),
    ),
)

INSTALLMENTS = CsvExport(
    "installments",
    output_columns(
        "id",
        "payment_plan_id",
        "order_reference",
        "customer_id",
        "sequence",
        "due_date",
        "status",
        "currency",
        "amount",
        "original_amount",
        "amount_paid",
        "attempts",
        "last_failure_reason",
        "paid_at",
        "processor_reference",
        "livemode",
        money=("amount", "original_amount", "amount_paid"),
    ),
)
