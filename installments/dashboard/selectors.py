"""Reads of the dashboard's plan pages, scoped to one merchant (DESIGN §12).

Kept apart from `selectors.py` (the API's reads): the dashboard searches and
filters, the API does not.
"""

from django.db.models import Prefetch, Q, QuerySet

from ..models import DepositAttempt, PaymentPlan
from ..selectors import plans_with_installments


def plans_search(
    merchant, *, query: str = "", status: str = ""
) -> QuerySet[PaymentPlan]:
    """The merchant's plans, newest first. `query` matches the order reference
    (any part of it, ignoring case) or a plan id exactly; `status` one status."""
    plans = plans_with_installments().filter(merchant=merchant)
    if query:
        plans = plans.filter(Q(order_reference__icontains=query) | Q(public_id=query))
    if status:
        plans = plans.filter(status=status)
    return plans.order_by("-created_at", "-id")


def plan_history(plan: PaymentPlan) -> dict:
    """What the plan page shows besides the plan: deposit attempts, and the
    status changes of the plan and of each installment, oldest first."""
    installments = plan.installments.prefetch_related(
        Prefetch("status_changes", to_attr="history")
    ).order_by("sequence")
    return {
        "installments": list(installments),
        "deposit_attempts": list(
            DepositAttempt.objects.filter(plan=plan).order_by("number")
        ),
        "status_changes": list(plan.status_changes.order_by("changed_at", "id")),
    }
