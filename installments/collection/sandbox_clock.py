"""The sandbox clock (`POST /api/v1/sandbox/payment-plans/<id>/advance`,
DESIGN section 15): everything that would happen to one plan up to the end of
a Lagos date, run now, day by day in date order, so a merchant watches a whole
plan's life (failures, waits and default included) in seconds.

Each day runs the very code of the schedules, scoped to the plan: the
reminders of that day, the engine's pass as of the end of that day (its claims,
charges, outcomes, events, ledger and e-mails), the requests to add a payment
method, the receipts. The sandbox judges that day's charges as of that day
(`sandbox_as_of`: a card that expires this month declines next month). Only the
days on which something can happen run: today, each reminder day, and the day
of each installment's next attempt (due date, retry, end of a wait); after
each day the plan is read again, so a retry decided on one day runs on its own.

What a day decides is dated by the clock (retries, waits); what it records is
stamped with the real time of the call (`paid_at`, the ledger, the events'
`createdAt`), as with `collect-next`.

Advancing again to the same or an earlier date finds nothing due and changes
nothing: the plan's state, not a stored clock, says what already happened.
Simultaneous advances of one plan are refused but one (409 `plan_busy`), and
every attempt is claimed by the engine's own claim, so none is charged twice
whatever else runs beside it (the schedule's pass, `collect-next`).
"""

from collections import Counter
from dataclasses import asdict, dataclass
from datetime import date, timedelta

from django.conf import settings
from django.db.models import Max
from django.utils import timezone

from config.db.locks import advisory_lock_try
from payments.gateway.processors.sandbox.clock import sandbox_as_of

from ..notifications import services as notifications
from ..notifications.models import Message
from ..plans.errors import PlanBusy, PlanNotCollectable
from ..plans.models import Installment, PaymentPlan
from ..plans.selectors import plans_with_installments
from .engine import collect_due
from .errors import AdvanceDateOutOfRange

Status = Installment.Status

# The latest date a plan can be advanced to: this long after its last due
# date, well past its last retry (+7 days) and the longest wait for a payment
# method (+8 days at most).
REACH_AFTER_LAST_DUE = timedelta(days=60)
LOCK_NAMESPACE = "sandbox-plan-advance"


@dataclass
class Day:
    """What one day of the clock did. The messages are those the plan's
    customer was sent that day (e-mails and texts), whoever sent them: the
    engine's own task may send a request to add a method before the day does."""

    date: date
    reminders_sent: int = 0
    attempts: int = 0
    paid: int = 0
    failed: int = 0
    action_required: int = 0
    defaulted: int = 0
    notices_sent: int = 0  # requests to add a payment method
    receipts_sent: int = 0

    def as_dict(self) -> dict:
        return {**asdict(self), "date": self.date.isoformat()}


def advance_limit(plan: PaymentPlan, *, today: date) -> date:
    """The latest date `plan` may be advanced to (never before today)."""
    last_due = max((i.due_date for i in plan.installments.all()), default=today)
    return max(last_due + REACH_AFTER_LAST_DUE, today)


def _validate(plan: PaymentPlan, to: date, today: date) -> None:
    if plan.status == PaymentPlan.Status.PENDING:
        raise PlanNotCollectable(
            "This plan is pending: its deposit is not paid, so it has no schedule "
            "to run yet."
        )
    if to < today:
        raise AdvanceDateOutOfRange(
            f"`to` ({to.isoformat()}) is before today ({today.isoformat()}, Lagos "
            "time): the clock only moves forward."
        )
    limit = advance_limit(plan, today=today)
    if to > limit:
        raise AdvanceDateOutOfRange(
            f"`to` ({to.isoformat()}) is too far: this plan can be advanced up to "
            f"{limit.isoformat()}, 60 days after its last due date."
        )


def _next_day(plan_pk: int, *, after: date | None, today: date) -> date | None:
    """The first day after `after` (from today) on which something can happen
    to the plan: a reminder, an installment's next attempt, or the due date
    of one waiting for a payment method (charged from then on once one is
    added). None when nothing is left (the plan is no longer active)."""
    if not PaymentPlan.objects.filter(
        pk=plan_pk, status=PaymentPlan.Status.ACTIVE
    ).exists():
        return None
    if after is None:
        return today  # what is due now, and a wait a new method has ended
    days = set()
    rows = Installment.objects.filter(plan_id=plan_pk, status__in=Installment.UNPAID)
    for status, due_date, next_attempt_at in rows.values_list(
        "status", "due_date", "next_attempt_at"
    ):
        if next_attempt_at is not None:
            days.add(timezone.localdate(next_attempt_at))
        if status == Status.SCHEDULED:
            days.add(due_date - timedelta(days=settings.REMINDER_DAYS_BEFORE))
        if status == Status.ACTION_REQUIRED:
            # A method added during the wait is charged from the due date on
            # (a rescheduled one: its new date), never before it.
            days.add(due_date)
    later = [day for day in days if day > after]
    return min(later, default=None)


def _run_day(plan: PaymentPlan, day: date) -> Day:
    messages = Message.objects.filter(customer_id=plan.customer_id)
    before = messages.aggregate(last=Max("id"))["last"] or 0
    with sandbox_as_of(day):
        notifications.reminders_send(day=day, plan_pk=plan.pk)
        tally = collect_due(on_date=day, plan_pk=plan.pk).tally
        waiting = list(
            plan.installments.filter(status=Status.ACTION_REQUIRED).values_list(
                "pk", flat=True
            )
        )
        if waiting:
            notifications.action_required_notices_send(installment_pks=waiting)
        notifications.collection_receipts_send(plan=plan)
    sent = Counter(
        messages.filter(id__gt=before, status=Message.Status.SENT).values_list(
            "kind", flat=True
        )
    )
    return Day(
        date=day,
        reminders_sent=sent[Message.Kind.REMINDER],
        attempts=tally.paid + tally.failed,
        paid=tally.paid,
        failed=tally.failed,
        action_required=tally.waiting,
        defaulted=tally.defaulted,
        notices_sent=sent[Message.Kind.ACTION_REQUIRED],
        receipts_sent=sent[Message.Kind.RECEIPT_COLLECTION],
    )


def plan_advance(*, plan: PaymentPlan, to: date) -> tuple[PaymentPlan, list[Day]]:
    """Run everything that would happen to `plan` up to the end of the Lagos
    date `to`, day by day; answer the plan as it is then and what each day did.

    422 `advance_date_out_of_range` for a date before today or past the plan's
    reach (`advance_limit`), 409 `plan_not_collectable` for a plan whose
    deposit is not paid, 409 `plan_busy` while another advance of it runs."""
    today = timezone.localdate()
    _validate(plan, to, today)
    days: list[Day] = []
    with advisory_lock_try(LOCK_NAMESPACE, plan.pk) as taken:
        if not taken:
            raise PlanBusy(
                "Another advance of this plan is running; ask again once it has "
                "answered."
            )
        day = None
        while (day := _next_day(plan.pk, after=day, today=today)) is not None:
            if day > to:
                break
            days.append(_run_day(plan, day))
    return plans_with_installments().get(pk=plan.pk), days
