"""Sandbox time travel (`POST /api/v1/sandbox/payment-plans/<id>/collect-next`):
a merchant testing an integration sees a month's collection now."""

from ..errors import PlanNotCollectable
from ..models import Installment, PaymentPlan
from ..selectors import plans_with_installments
from .engine import installment_collect_now

Status = Installment.Status


def plan_collect_next(*, plan: PaymentPlan) -> PaymentPlan:
    """The plan's next unpaid installment is collected at once, due or not,
    through the engine like any other (the same claim, events, ledger, retries
    and default). Raises 409 `plan_not_collectable` when nothing is left, and
    when the engine's claim finds the installment taken: another call (or the
    schedule) is collecting it, or has just settled that attempt. Only the call
    whose claim won charges, so simultaneous calls charge it once."""
    if plan.status != PaymentPlan.Status.ACTIVE:
        raise PlanNotCollectable(
            f"This plan is {plan.status}: only an active plan has installments "
            "to collect."
        )
    unpaid = (
        plan.installments.exclude(
            status__in=(Status.PAID, Status.DEFAULTED, Status.CANCELLED)
        )
        .order_by("sequence")
        .first()
    )
    if unpaid is None:
        raise PlanNotCollectable()
    if (
        unpaid.status == Status.PROCESSING
        or not installment_collect_now(installment=unpaid).claimed
    ):
        raise PlanNotCollectable(
            f"Installment {unpaid.sequence} is being collected right now; ask again "
            "in a moment."
        )
    return plans_with_installments().get(pk=plan.pk)
