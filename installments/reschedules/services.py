"""Moving an installment's due date (DESIGN section 15), by the plan's customer
or its merchant, in one durable transaction: the plan's lock first (as refunds,
cancellations and early payments take it), then the installment's with the
engine's `SKIP LOCKED`, so a reschedule and an engine claim never both hold
one installment. One being collected right now is a 409 and nothing changes.

The move writes what the engine claims by: `due_date`, and `next_attempt_at`
(the start of the new date; for one waiting for a payment method, the end of
its wait counted from the new date), so the engine collects it on the new date
and not the old one. Attempts already made still count towards the limit of 4;
retries after a failure on the new date follow it (+1, +3, +7 days). Amounts,
statuses and the score are never touched.
"""

from datetime import date, datetime

from django.db import transaction
from django.utils import timezone

from config.api.ids import looks_like_public_id
from merchants.audit.actors import Actor
from merchants.audit.services import audit_record
from webhooks.services import emit_events

from ..collection.retries import waiting_until
from ..notifications import notices
from ..notifications.services import schedule_change_notice_send
from ..plans import events
from ..plans.errors import InstallmentNotFound, PaymentInProgress
from ..plans.models import Installment, PaymentPlan, start_of_day
from . import rules
from .errors import NoticeTooShort, RescheduleNotAllowed
from .models import Reschedule

Status = Installment.Status


def _plan_locked(plan: PaymentPlan) -> PaymentPlan:
    return (
        PaymentPlan.objects.select_for_update(of=("self",))
        .select_related("merchant", "customer")
        .get(pk=plan.pk)
    )


def _installment_locked(plan: PaymentPlan, installment_id: str) -> Installment:
    """The plan's installment, locked; 409 while an engine claim holds it or
    it is being charged."""
    if not looks_like_public_id(installment_id, "inst"):
        raise InstallmentNotFound()
    rows = plan.installments.filter(public_id=installment_id)
    locked = list(rows.select_for_update(skip_locked=True, of=("self",)))
    if not locked and not rows.exists():
        raise InstallmentNotFound()
    if not locked or locked[0].status == Status.PROCESSING:
        sequence = locked[0].sequence if locked else rows.get().sequence
        raise PaymentInProgress(
            f"Installment {sequence} is being collected right now: its date cannot "
            "move. Check the plan again in a moment."
        )
    row = locked[0]
    if row.status not in Installment.UNPAID:
        raise RescheduleNotAllowed(
            f"Installment {row.sequence} is {row.status}: only an unpaid "
            "installment's date can move."
        )
    return row


def _limits(plan: PaymentPlan, by: str) -> rules.CustomerLimits | None:
    if by != rules.CUSTOMER:
        return None
    merchant = plan.merchant
    return rules.CustomerLimits(
        allowed=merchant.customer_reschedules_allowed,
        used=plan.reschedules.filter(by=rules.CUSTOMER).count(),
        max_days=merchant.reschedule_max_days,
    )


def next_attempt_after_move(row: Installment, new: date, now: datetime) -> datetime:
    """When the engine next tries the moved installment: from the start of its
    new date; one waiting for a payment method waits until its wait, counted
    from the new date, ends (and is not tried before the new date when the
    customer adds a method: collection/claims.py)."""
    if row.status == Status.ACTION_REQUIRED:
        since = row.action_required_at or now
        return waiting_until(due_date=new, since=timezone.localdate(since))
    return start_of_day(new)


@transaction.atomic(durable=True)
def installment_reschedule(
    *,
    plan: PaymentPlan,
    installment_id: str,
    due_date: date,
    by: str,
    actor: Actor | None = None,
) -> Reschedule:
    """Move `installment_id` of `plan` to `due_date`, as its customer
    (`rules.CUSTOMER`: their merchant's limits apply) or its merchant. 422
    `reschedule_not_allowed` with the reason, 409 `payment_in_progress` while
    it is being collected, 404 for an installment that is not the plan's."""
    now = timezone.now()
    plan = _plan_locked(plan)
    if plan.status != PaymentPlan.Status.ACTIVE:
        raise RescheduleNotAllowed(
            f"This plan is {plan.status}: only an active plan's dates can move."
        )
    row = _installment_locked(plan, installment_id)
    following = (
        plan.installments.filter(sequence__gt=row.sequence)
        .order_by("sequence")
        .values_list("due_date", flat=True)
        .first()
    )
    move = rules.Move(
        sequence=row.sequence,
        current=row.due_date,
        new=due_date,
        next_due=following,
        today=timezone.localdate(now),
    )
    refused = rules.refusal(move, by=by, limits=_limits(plan, by))
    if refused:
        raise RescheduleNotAllowed(refused)
    too_short = rules.notice_refusal(move, by=by)
    if too_short:
        raise NoticeTooShort(too_short)
    reschedule = Reschedule.objects.create(
        plan=plan,
        installment=row,
        from_date=row.due_date,
        to_date=due_date,
        by=by,
        created_at=now,
    )
    row.next_attempt_at = next_attempt_after_move(row, due_date, now)
    row.due_date = due_date
    row.reschedule_count += 1
    row.save(
        update_fields=["due_date", "next_attempt_at", "reschedule_count", "updated_at"]
    )
    reschedule.installment = row
    emit_events(merchant=plan.merchant, events=[events.plan_rescheduled(reschedule)])
    if by == rules.MERCHANT:
        _customer_notify(plan, reschedule)
    if actor is not None:
        _audited(reschedule, actor)
    return reschedule


def _audited(reschedule: Reschedule, actor: Actor) -> None:
    """A merchant's move in the audit log (a customer's own is in the plan's
    history, not the merchant's log)."""
    audit_record(
        merchant=reschedule.plan.merchant,
        action="plan.rescheduled",
        actor=actor,
        object_type="installment",
        object_id=reschedule.installment.public_id,
        changes={"due_date": [str(reschedule.from_date), str(reschedule.to_date)]},
    )


def _customer_notify(plan: PaymentPlan, reschedule: Reschedule) -> None:
    """The notice of the merchant's move (DESIGN section 18), once per move. A
    customer's own move tells them nothing: they asked for it, and the page or
    the API answered them."""
    row = reschedule.installment
    schedule_change_notice_send(
        plan=plan,
        subject=f"rs_{reschedule.pk}",
        change=notices.moved(
            sequence=row.sequence,
            count=plan.installment_count,
            amount=row.amount_owed,
            old=reschedule.from_date,
            new=reschedule.to_date,
        ),
    )
