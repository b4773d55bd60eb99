"""Reads for rescheduling: what the plan pages offer to move."""

from ..plans.models import Installment, PaymentPlan
from . import rules
from .models import Reschedule


def installments_movable(plan: PaymentPlan, *, by: str) -> list[Installment]:
    """The installments of an active plan whose date `by` may ask to move: the
    unpaid ones (for a customer, not the last). The date's own rules are the
    service's."""
    if plan.status != PaymentPlan.Status.ACTIVE:
        return []
    rows = list(plan.installments.all())
    if by == rules.CUSTOMER:
        rows = rows[:-1]
    return [row for row in rows if row.status in Installment.UNPAID]


def customer_reschedules_left(plan: PaymentPlan) -> int:
    """How many more due dates the plan's customer may move (its merchant's
    allowance less the customer's moves so far; the merchant's do not count)."""
    used = sum(1 for row in plan.reschedules.all() if row.by == Reschedule.By.CUSTOMER)
    return max(0, plan.merchant.customer_reschedules_allowed - used)
