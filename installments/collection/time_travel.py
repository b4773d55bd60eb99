"""Sandbox time travel (`POST /api/v1/sandbox/payment-plans/<id>/collect-next`):
a merchant testing an integration sees a month's collection now."""

from django.utils import timezone

from ..errors import PlanNotCollectable
from ..models import Installment, PaymentPlan
from ..selectors import plans_with_installments
from .engine import installment_collect_now

Status = Installment.Status


def plan_collect_next(*, plan: PaymentPlan) -> PaymentPlan:
    """The plan's next unpaid installment becomes due now and is collected at
    once, through the engine like any other (the same events, ledger, retries
    and default). Raises 409 `plan_not_collectable` when nothing is left."""
    if plan.status != PaymentPlan.Status.ACTIVE:
        raise PlanNotCollectable(
            f"This plan is {plan.status}: only an active plan has installments "
            "to collect."
        )
    unpaid = (
        plan.installments.exclude(status__in=(Status.PAID, Status.DEFAULTED))
        .order_by("sequence")
        .first()
    )
    if unpaid is None:
        raise PlanNotCollectable()
    if unpaid.status == Status.PROCESSING:
        raise PlanNotCollectable(
            f"Installment {unpaid.sequence} is being collected right now; ask again "
            "in a moment."
        )
    now = timezone.now()
    Installment.objects.filter(
        pk=unpaid.pk, status__in=(Status.SCHEDULED, Status.FAILED)
    ).update(next_attempt_at=now, updated_at=now)
    installment_collect_now(installment_pk=unpaid.pk)
    return plans_with_installments().get(pk=plan.pk)
