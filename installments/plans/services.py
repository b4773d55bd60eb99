"""Writes every feature of installments shares: taking a plan's row lock."""

from .models import PaymentPlan


def lock_plan(plan: PaymentPlan) -> PaymentPlan:
    return (
        PaymentPlan.objects.select_for_update(of=("self",))
        .select_related("merchant", "customer")
        .get(pk=plan.pk)
    )
