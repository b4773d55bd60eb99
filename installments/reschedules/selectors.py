"""Reads for rescheduling: what the plan pages offer to move."""

from ..models import Installment, PaymentPlan
from . import rules


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
