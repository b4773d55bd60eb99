"""Recording a batch's outcomes: one transaction, set-based writes.

For the installments still in the claim that charged them (`processing`, same
attempt number: a worker whose lease ran out and was taken over records
nothing), in one transaction and a fixed lock order (plans, installments,
customers, each by primary key):

- paid: the installments (one UPDATE), their collections in the ledger (2.5% fee;
  two INSERTs for the batch, one transaction per installment, keyed by the
  installment id so the database refuses a second), `payment_plan.installment_paid`
  and `installment.paid` with the same payload;
- failed: `failed` with the next attempt at 10:00 Lagos on the due date + 1, 3,
  then 7 days; the 4th failed attempt defaults the installment and its plan;
  `payment.failed` with the reason and whether it is retryable; messages to the
  customer (and, on default, the merchant), recorded here and sent after the
  commit (installments/notifications/);
- failed, with a partial debit that collected part of what was owed
  (partial_outcomes.py): `amount_paid`, its collection (the fee on that part),
  `installment.partially_paid`, the customer's message; the rest keeps one last
  try (retries.py);
- failed, on a manual plan with no method to charge (`not_paid`, DESIGN
  section 17): as any soft decline, but the customer's message is the
  "payment due" notice (installments/notifications/manual_texts.py);
- failed by a hard decline with no method left (the decline table,
  payments/gateway/declines.py): `failed`, then `action_required` until the
  end of the wait (`waiting_until`), and the customer is asked by e-mail and
  SMS to add a method (installments/notifications/, after the commit); a hard
  decline once that wait is over defaults like the last retry;
- the plans: defaulted (`payment_plan.defaulted`) by a defaulted installment,
  completed (`payment_plan.completed`) when every installment is paid, each once
  per plan; the merchant's release rule (`goods.release` once per plan);
- the customers' scores, recomputed.

When the batch cannot be recorded as a whole, each installment is recorded on
its own, so one bad row costs only itself (it stays in flight, to be verified
when its lease ends).
"""

import logging
from collections import defaultdict
from datetime import date

from django.db import transaction
from django.utils import timezone

from config.api.queue import enqueue_on_commit
from merchants.models import Merchant
from payments.customers.models import Customer
from payments.gateway.declines import NOT_PAID
from payments.ledger.services import Collection, collections_post
from webhooks.services import emit_for_merchants

from ..notifications import manual_texts, texts
from ..notifications.services import messages_send_on_commit
from ..plans import events, scores
from ..plans.milestones import milestones_reach
from ..plans.models import Installment, PaymentPlan
from ..plans.selectors import installments_paid_sums
from .batch import Batch, Tally
from .charging import FAILED, PAID, Result
from .claims import partial_reference_expression, reference_expression
from .partial_outcomes import partials_record
from .retries import DEFAULT, MAX_ATTEMPTS, RETRY, WAIT, after_failure, retry_at

logger = logging.getLogger("installments.collection")

Status = Installment.Status

NOTICE_TASK = "installments.notifications.tasks.send_action_required_notices"


_ROW_FIELDS = (
    "id",
    "public_id",
    "plan_id",
    "sequence",
    "amount",
    "currency",
    "due_date",
    "status",
    "attempts",
    "next_attempt_at",
    "last_failure_reason",
    "processor_reference",
    "status_changed_at",
    "action_required_at",
    "amount_paid",
)
_PLAN_FIELDS = (
    "id",
    "public_id",
    "merchant_id",
    "customer_id",
    "order_reference",
    "total_amount",
    "deposit_amount",
    "status",
    "installment_count",
    "goods_released_at",
    "status_changed_at",
)


def _record_paid(batch: Batch, results: list[Result]) -> None:
    # One UPDATE per method position (nearly always one: the default paid).
    groups: dict[int, list[Installment]] = defaultdict(list)
    for result in results:
        row = batch.rows[result.claim.pk]
        row.processor_reference = result.reference
        row.next_attempt_at = None
        groups[-1 if result.partial_asked else result.method_number].append(row)
        batch.events[result.claim.merchant_pk] += events.installment_paid(
            result.claim, result.reference, channel=result.channel
        )
    for method_number, rows in groups.items():
        Installment.bulk_transition(
            rows,
            Status.PAID,
            at=batch.now,
            same={
                "next_attempt_at": None,
                "processor_reference": reference_expression(method_number)
                if method_number >= 0
                else partial_reference_expression(),
            },
        )
    collections_post(
        [
            Collection(
                merchant_pk=result.claim.merchant_pk,
                merchant_public_id=batch.merchants[result.claim.merchant_pk].public_id,
                livemode=batch.merchants[result.claim.merchant_pk].livemode,
                customer_pk=result.claim.customer_pk,
                amount=result.claim.amount,
                reference=result.claim.public_id,
                processor_reference=result.reference,
                resource_type="installment",
                resource_id=result.claim.public_id,
                currency=result.claim.currency,
                description=(
                    f"Installment {result.claim.sequence} of "
                    f"{result.claim.installment_count}, order "
                    f"{result.claim.order_reference}"
                )[:255],
            )
            for result in results
        ]
    )
    batch.tally.paid += len(results)


def _next_step(batch: Batch, result: Result, row: Installment) -> str:
    """RETRY, WAIT or DEFAULT (retries.py), with the row's next attempt set."""
    since = row.action_required_at
    step, row.next_attempt_at = after_failure(
        attempts=row.attempts,
        retryable=result.decline.retryable,
        due_date=row.due_date,
        pass_date=batch.pass_date,
        waiting_since=timezone.localdate(since) if since else None,
        partial=result.partial_amount > 0,
    )
    return step


def _record_failed(
    batch: Batch, results: list[Result], customers: dict[int, Customer]
) -> list[Installment]:
    """The failed attempts; returns the installments that defaulted."""
    # One UPDATE per (reason, next attempt, method position): a batch's rows
    # share few of them.
    groups: dict[tuple, list[Installment]] = defaultdict(list)
    steps: dict[str, list[Installment]] = defaultdict(list)
    for result in results:
        claim = result.claim
        row = batch.rows[claim.pk]
        row.last_failure_reason = result.reason
        row.processor_reference = result.reference
        step = _next_step(batch, result, row)
        steps[step].append(row)
        groups[(result.reason, row.next_attempt_at, result.method_number)].append(row)
        plan = batch.plans[claim.plan_pk]
        batch.events[claim.merchant_pk].append(
            events.payment_failed(plan, result.reason, channel=result.channel)
        )
        if step == WAIT:
            # The customer's notice (e-mail and SMS) says it all.
            batch.notices.append(claim.pk)
            continue
        if result.partial_amount:
            continue  # partials_record writes to the customer
        if step == RETRY and result.reason == NOT_PAID:
            batch.messages += _payment_due(batch, claim, customers)
            continue
        batch.messages += texts.failed_attempt(
            claim,
            customer=customers[claim.customer_pk],
            merchant=batch.merchants[claim.merchant_pk],
            reason=result.reason,
            next_attempt_at=row.next_attempt_at,
        )
    for (reason, next_attempt_at, method_number), rows in groups.items():
        Installment.bulk_transition(
            rows,
            Status.FAILED,
            at=batch.now,
            same={
                "last_failure_reason": reason,
                "next_attempt_at": next_attempt_at,
                "processor_reference": reference_expression(method_number)
                if method_number
                else "",
            },
        )
    partials = [result for result in results if result.partial_asked]
    if partials:
        partials_record(batch, partials, customers)
    Installment.bulk_transition(steps[WAIT], Status.ACTION_REQUIRED, at=batch.now)
    Installment.bulk_transition(steps[DEFAULT], Status.DEFAULTED, at=batch.now)
    batch.tally.failed += len(results)
    batch.tally.waiting += len(steps[WAIT])
    batch.tally.defaulted += len(steps[DEFAULT])
    return steps[DEFAULT]


def _payment_due(batch: Batch, claim, customers) -> list:
    """A manual plan's installment not charged (`not_paid`): the customer is
    told to pay it before the last retry day, when the plan would default."""
    return manual_texts.payment_due(
        claim,
        customer=customers[claim.customer_pk],
        merchant=batch.merchants[claim.merchant_pk],
        deadline=retry_at(
            due_date=claim.due_date,
            failed_attempts=MAX_ATTEMPTS - 1,
            pass_date=batch.pass_date,
        ),
        first=claim.attempt == 1,
    )


def _record_plans(batch: Batch, defaulted: list[Installment]) -> None:
    """Default, completion and the release rule of the batch's plans."""
    plans = batch.plans
    defaulting = [
        plans[pk]
        for pk in sorted({row.plan_id for row in defaulted})
        if plans[pk].status == PaymentPlan.Status.ACTIVE
    ]
    PaymentPlan.bulk_transition(defaulting, PaymentPlan.Status.DEFAULTED, at=batch.now)
    if defaulting:
        # A defaulted plan's later installments are no longer collected.
        Installment.objects.filter(
            plan__in=defaulting, status__in=Installment.UNPAID
        ).update(next_attempt_at=None, updated_at=batch.now)
        # Once per plan: only a plan that was active moves (and announces it).
        paid = installments_paid_sums([plan.pk for plan in defaulting])
        for plan in defaulting:
            batch.events[plan.merchant_id].append(
                events.plan_defaulted(plan, installments_paid=paid.get(plan.pk, 0))
            )
    reached = milestones_reach(
        plans=list(plans.values()), at=batch.now, merchants=batch.merchants
    )
    for plan, event in reached.plan_events():
        batch.events[plan.merchant_id].append(event)
    batch.tally.completed += len(reached.completed)
    batch.tally.released += len(reached.released)


def apply_outcomes(results: list[Result], *, pass_date: date) -> Tally:
    """Record decided results inside the caller's transaction (the engine's own,
    or the one in which payments records a processor's `charge.success`)."""
    now = timezone.now()
    with transaction.atomic(savepoint=False):
        # The plans' locks first (DESIGN 14: refunds, cancellations and early
        # payments take a plan's lock before its installments'), so a refund
        # waiting on an installment this batch holds never deadlocks with it.
        plans = {
            plan.pk: plan
            for plan in PaymentPlan.objects.select_for_update()
            .filter(pk__in=sorted({result.claim.plan_pk for result in results}))
            .order_by("pk")
            .only(*_PLAN_FIELDS)
        }
        rows = {
            row.pk: row
            for row in Installment.objects.select_for_update()
            .filter(pk__in=sorted(result.claim.pk for result in results))
            .order_by("pk")
            .only(*_ROW_FIELDS)
        }
        mine = [
            result
            for result in results
            if (row := rows.get(result.claim.pk)) is not None
            and row.status == Status.PROCESSING
            and row.attempts == result.claim.attempt
        ]
        if not mine:
            return Tally(skipped=len(results))
        plans = {result.claim.plan_pk: plans[result.claim.plan_pk] for result in mine}
        merchants = Merchant.objects.only(
            "id", "public_id", "livemode", "email", "business_name", "release_rule"
        ).in_bulk({plan.merchant_id for plan in plans.values()})
        batch = Batch(
            now=now, pass_date=pass_date, rows=rows, plans=plans, merchants=merchants
        )
        batch.tally.skipped = len(results) - len(mine)
        paid = [result for result in mine if result.status == PAID]
        failed = [result for result in mine if result.status == FAILED]
        if paid:
            _record_paid(batch, paid)
        defaulted: list[Installment] = []
        if failed:
            customers = Customer.objects.only(
                "id", "email", "first_name", "sms_phone"
            ).in_bulk({result.claim.customer_pk for result in failed})
            defaulted = _record_failed(batch, failed, customers)
        _record_plans(batch, defaulted)
        _announce(batch, customer_pks={result.claim.customer_pk for result in mine})
    return batch.tally


def _announce(batch: Batch, *, customer_pks: set[int]) -> None:
    """The batch's events, the customers' scores, and its messages (recorded
    now, sent after the commit)."""
    emit_for_merchants(
        [(batch.merchants[pk], events) for pk, events in batch.events.items()]
    )
    scores.scores_refresh(customer_pks=customer_pks)
    messages_send_on_commit(batch.messages, task_name="send-collection-messages")
    if batch.notices:
        enqueue_on_commit(
            NOTICE_TASK, batch.notices, task_name="action-required-notices"
        )


def record(results: list[Result], *, pass_date: date) -> Tally:
    """Record the decided results of a batch (paid or failed); the others stay
    in flight. Never raises."""
    decided = [result for result in results if result.status in (PAID, FAILED)]
    if not decided:
        return Tally()
    try:
        with transaction.atomic(durable=True):
            return apply_outcomes(decided, pass_date=pass_date)
    except Exception:
        if len(decided) == 1:
            _log_broken(decided[0])
            return Tally(broken=1)
        logger.exception(
            "Recording a batch of %s outcomes failed; recording them one by one",
            len(decided),
        )
    tally = Tally()
    for result in decided:
        try:
            with transaction.atomic(durable=True):
                tally.add(apply_outcomes([result], pass_date=pass_date))
        except Exception:
            _log_broken(result)
            tally.broken += 1
    return tally


def _log_broken(result: Result) -> None:
    logger.exception(
        "Installment %s attempt %s (%s, %s): the outcome could not be recorded; it "
        "stays in flight and is verified when its lease ends",
        result.claim.public_id,
        result.claim.attempt,
        result.status,
        result.reference,
    )
