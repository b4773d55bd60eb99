"""After a lost dispute: the merchant resumes the plan waiting `disputed`
(DESIGN section 19), and the customer is told what changes (section 18)."""

from django.db import transaction
from django.utils import timezone

from merchants.audit.actors import SYSTEM, Actor
from merchants.audit.services import audit_record

from ..notifications.emails import naira
from ..notifications.notices import Change
from ..notifications.services import schedule_change_notice_send
from ..plans.models import Installment, PaymentPlan
from ..plans.services import lock_plan
from .errors import PlanNotResumable
from .models import Dispute


def _resumed_change(charged_back: int) -> Change:
    return Change(
        email=(
            "Your plan continues: the installments still unpaid are collected on "
            f"their dates. The {naira(charged_back)} your bank took back is not "
            "collected again automatically; your merchant may contact you about it."
        ),
        sms=f"plan continues; {naira(charged_back)} reversed by your bank not re-taken",
    )


@transaction.atomic(durable=True)
def plan_resume(*, plan: PaymentPlan, actor: Actor = SYSTEM) -> PaymentPlan:
    """The merchant continues a plan waiting `disputed` (DESIGN section 19):
    it is active again and its unpaid installments are collected on their
    dates; the customer's notice of change is sent (section 18). What was
    charged back is not asked again by the engine (each installment is
    collected once under its own reference: docs/decisions.md); a plan with
    nothing left unpaid is completed again."""
    plan = lock_plan(plan)
    if plan.status != PaymentPlan.Status.DISPUTED:
        raise PlanNotResumable(
            f"This plan is {plan.status}: only a plan waiting after a dispute it "
            "lost can be resumed."
        )
    if plan.open_disputes:
        raise PlanNotResumable("This plan has a dispute still open: wait for it.")
    now = timezone.now()
    disputes = list(
        Dispute.objects.select_for_update(of=("self",))
        .filter(plan=plan, status__in=Dispute.CHARGED_BACK, resumed_at__isnull=True)
        .order_by("id")
    )
    Dispute.objects.filter(pk__in=[d.pk for d in disputes]).update(
        resumed_at=now, updated_at=now
    )
    plan.transition_to(PaymentPlan.Status.ACTIVE, at=now)
    still_open = (*Installment.UNPAID, Installment.Status.PROCESSING)
    if not plan.installments.filter(status__in=still_open).exists():
        # Nothing is left to collect: it is complete, as it was (announced
        # once, before).
        plan.transition_to(PaymentPlan.Status.COMPLETED, at=now)
    if disputes:
        schedule_change_notice_send(
            plan=plan,
            subject=f"{disputes[0].public_id}_resume",
            change=_resumed_change(sum(d.amount_held for d in disputes)),
        )
    audit_record(
        merchant=plan.merchant,
        action="plan.resumed",
        actor=actor,
        object_type="payment_plan",
        object_id=plan.public_id,
        changes={"status": [PaymentPlan.Status.DISPUTED, plan.status]},
    )
    return plan
