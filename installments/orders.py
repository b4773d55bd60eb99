"""The order behind a wallet movement, for payout settlement reports
(registered with `payments.payouts.orders` in installments/apps.py)."""

from collections import defaultdict
from collections.abc import Iterable

from payments.payouts.orders import OrderOf

from .disputes.models import Dispute
from .plans.models import Installment, PaymentPlan
from .refunds.models import Refund


def orders_of_resources(
    resources: Iterable[tuple[str, str]],
) -> dict[tuple[str, str], OrderOf]:
    """One query per kind of resource: an installment's plan and order, a
    deposit's (`payment_plan`) order, a refund's plan and order, a dispute's
    plan, order and installment."""
    ids = defaultdict(set)
    for resource_type, resource_id in resources:
        ids[resource_type].add(resource_id)
    found = {}
    if ids["installment"]:
        for inst, plan, order in Installment.objects.filter(
            public_id__in=ids["installment"]
        ).values_list("public_id", "plan__public_id", "plan__order_reference"):
            found["installment", inst] = OrderOf(order, plan, inst)
    if ids["payment_plan"]:
        for plan, order in PaymentPlan.objects.filter(
            public_id__in=ids["payment_plan"]
        ).values_list("public_id", "order_reference"):
            found["payment_plan", plan] = OrderOf(order, plan)
    if ids["refund"]:
        for refund, plan, order in Refund.objects.filter(
            public_id__in=ids["refund"]
        ).values_list("public_id", "plan__public_id", "plan__order_reference"):
            found["refund", refund] = OrderOf(order, plan)
    if ids["dispute"]:
        for dispute, plan, order, inst in Dispute.objects.filter(
            public_id__in=ids["dispute"]
        ).values_list(
            "public_id",
            "plan__public_id",
            "plan__order_reference",
            "installment__public_id",
        ):
            found["dispute", dispute] = OrderOf(order, plan, inst or "")
    return found
