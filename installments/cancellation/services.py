"""Stopping a plan's collection (DESIGN section 14): its merchant cancels it
(`POST /api/v1/payment-plans/<id>/cancel`), or a refund cancels its last unpaid
installments. Nothing is refunded by a cancellation; a cancelled installment
keeps the amount it owed and is never claimed again."""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from merchants.audit.actors import SYSTEM, Actor
from merchants.audit.services import audit_record
from webhooks.services import emit_events

from ..notifications.selectors import dues_of
from ..notifications.services import plan_cancelled_notice_send
from ..plans import events
from ..plans.models import Installment, PaymentPlan
from ..plans.services import lock_plan
from .errors import PlanNotCancellable

Status = Installment.Status
# A plan with one of these left still has something to collect or settle.
OPEN_INSTALLMENT_STATUSES = (*Installment.UNPAID, Status.PROCESSING)
# A refund ends a plan it leaves nothing to collect of in these.
ENDABLE_PLAN_STATUSES = (PaymentPlan.Status.ACTIVE, PaymentPlan.Status.DEFAULTED)
# The merchant may cancel these, and a plan waiting after a dispute it lost
# (DESIGN section 19).
CANCELLABLE_PLAN_STATUSES = (*ENDABLE_PLAN_STATUSES, PaymentPlan.Status.DISPUTED)


def open_installments_lock(plan: PaymentPlan) -> list[Installment]:
    """The plan's installments not yet settled, locked (the caller holds the
    plan's lock already): an engine claim in progress is waited for, so one
    being charged is seen `processing`."""
    return list(
        Installment.objects.select_for_update()
        .filter(plan=plan, status__in=OPEN_INSTALLMENT_STATUSES)
        .order_by("pk")
    )


def installments_cancel(
    rows: list[Installment], *, at: datetime, same: dict | None = None
) -> None:
    """Cancel unpaid installments (locked by the caller): never claimed again.
    `same`: other columns written by the same UPDATE."""
    for row in rows:
        row.next_attempt_at = None
    Installment.bulk_transition(
        rows, Status.CANCELLED, at=at, same={"next_attempt_at": None, **(same or {})}
    )


def plan_cancel_when_nothing_left(plan: PaymentPlan, *, at: datetime) -> bool:
    """Cancel the (locked) plan when it is active or defaulted and none of its
    installments is left to collect or settle; True when it was."""
    if plan.status not in ENDABLE_PLAN_STATUSES:
        return False
    if plan.installments.filter(status__in=OPEN_INSTALLMENT_STATUSES).exists():
        return False
    plan.transition_to(PaymentPlan.Status.CANCELLED, at=at)
    return True


@transaction.atomic(durable=True)
def plan_merchant_cancel(
    *, plan: PaymentPlan, reason: str, actor: Actor = SYSTEM
) -> PaymentPlan:
    """The merchant stops the plan: every unpaid installment `cancelled`, the
    plan `cancelled`, `payment_plan.cancelled` and the customer's notice
    (DESIGN section 18) once. 409 `plan_not_cancellable` on a plan that is
    not active, defaulted or disputed, or while an installment is being
    charged."""
    plan = lock_plan(plan)
    before = plan.status
    if plan.status not in CANCELLABLE_PLAN_STATUSES:
        raise PlanNotCancellable(
            f"This plan is {plan.status}: only an active, defaulted or disputed "
            "plan can be cancelled."
        )
    rows = open_installments_lock(plan)
    busy = [row for row in rows if row.status == Status.PROCESSING]
    if busy:
        raise PlanNotCancellable(
            f"Installment {busy[0].sequence} is being charged right now; retry in a "
            "moment, once the charge has settled."
        )
    now = timezone.now()
    cancelled = dues_of(rows)
    installments_cancel(rows, at=now)
    plan.cancellation_reason = reason[:255]
    plan.transition_to(
        PaymentPlan.Status.CANCELLED, at=now, update_fields=["cancellation_reason"]
    )
    emit_events(merchant=plan.merchant, events=[events.plan_cancelled(plan)])
    plan_cancelled_notice_send(plan, cancelled=cancelled)
    audit_record(
        merchant=plan.merchant,
        action="plan.cancelled",
        actor=actor,
        object_type="payment_plan",
        object_id=plan.public_id,
        changes={"status": [before, plan.status], "reason": [None, reason[:255]]},
    )
    return plan
