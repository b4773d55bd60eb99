"""Use-cases of payment plans: prepare at checkout, the deposit attempts, activation
(DESIGN section 7); completion and the release rule are `milestones.py`'s.

These functions run inside their caller's transaction (`atomic(savepoint=False)`):
checkout completion owns the durable transactions and the session lock; these
own the plan's rows, money and events. Money moves to the ledger in the same
transaction as the state it belongs to; events go to the outbox there too.
"""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from payments.gateway.declines import REASONS, decline_of
from payments.gateway.processors.base import PayChannel
from payments.ledger.services import collection_post
from webhooks.services import emit_events

from ..plans import events, rules
from ..plans.errors import PaymentInProgress
from ..plans.milestones import milestones_reach
from ..plans.models import Installment, PaymentPlan, start_of_day
from ..plans.services import lock_plan
from .consent import Consent
from .models import DepositAttempt

# The closed list of `payment.failed` reasons (docs/webhooks.md), from the one
# decline table; a processor's other declines are the bank's generic refusal.
FAILURE_REASONS = REASONS


def deposit_reference(plan: PaymentPlan, number: int) -> str:
    """`<plan id>_d<attempt>`: one reference per attempt, never reused."""
    return f"{plan.public_id}_d{number}"


def plan_prepare(
    *,
    plan: PaymentPlan | None,
    merchant,
    customer,
    order_reference: str,
    currency: str,
    terms: rules.PlanTerms,
    score: int,
    collection: str = PaymentPlan.Collection.AUTO,
) -> PaymentPlan:
    """The checkout's pending plan with these terms: created on the first
    attempt, its terms (and customer, and how its installments are collected)
    refreshed on every later one."""
    fields = {
        "customer": customer,
        "collection": collection,
        "total_amount": terms.total_amount,
        "deposit_amount": terms.deposit_amount,
        "deposit_percent": terms.deposit_percent,
        "tier": terms.tier,
        "customer_score": score,
        "schedule_type": terms.schedule_type,
        "installment_count": terms.installment_count,
        "installment_amounts": list(terms.installment_amounts),
        "preferred_day": rules.preferred_day_stored(terms.preferred_day),
    }
    with transaction.atomic(savepoint=False):
        if plan is None:
            return PaymentPlan.objects.create(
                merchant=merchant,
                order_reference=order_reference,
                currency=currency,
                **fields,
            )
        plan = lock_plan(plan)
        if plan.status != PaymentPlan.Status.PENDING:
            raise ValueError(f"plan {plan.public_id} is {plan.status}, not pending")
        for name, value in fields.items():
            setattr(plan, name, value)
        plan.save(update_fields=[*fields, "updated_at"])
    return plan


def deposit_attempt_open(
    *,
    plan: PaymentPlan,
    payment_method,
    consent: Consent,
    channel: str = "",
    expires_at: datetime | None = None,
) -> DepositAttempt:
    """Claim the next deposit attempt of a pending plan (locked by the caller):
    charged on `payment_method`, or by `channel` (bank transfer or USSD, with
    `payment_method` the one the installments are collected from, or None).
    It keeps the customer's `consent` to the key facts, stamped now.

    Committed before the processor is called; while it is in flight no other
    attempt can open (409 `payment_in_progress`, and a database constraint)."""
    if not channel:
        channel = (
            PayChannel.BANK_ACCOUNT
            if payment_method.type == payment_method.Type.BANK
            else PayChannel.CARD
        )
    with transaction.atomic(savepoint=False):
        if plan.deposit_attempts.filter(
            status=DepositAttempt.Status.PROCESSING
        ).exists():
            raise PaymentInProgress()
        plan.deposit_attempt_count += 1
        plan.save(update_fields=["deposit_attempt_count", "updated_at"])
        return DepositAttempt.objects.create(
            plan=plan,
            number=plan.deposit_attempt_count,
            reference=deposit_reference(plan, plan.deposit_attempt_count),
            customer=plan.customer,
            payment_method=payment_method,
            channel=channel,
            expires_at=expires_at,
            amount=plan.deposit_amount,
            currency=plan.currency,
            terms_accepted_at=timezone.now(),
            terms_ip=consent.ip,
            terms_user_agent=consent.user_agent,
        )


def _lock_attempt(attempt: DepositAttempt) -> DepositAttempt:
    return DepositAttempt.objects.select_for_update().get(pk=attempt.pk)


def _due_dates(plan: PaymentPlan, paid_at: datetime) -> tuple:
    """From the day the deposit is paid, on the plan's payday when it has one."""
    return rules.due_dates(
        start=timezone.localdate(paid_at),
        schedule_type=plan.schedule_type,
        count=plan.installment_count,
        preferred_day=plan.payday,
    )


def deposit_succeeded(
    *, attempt: DepositAttempt, processor_id: str = "", at: datetime | None = None
) -> PaymentPlan:
    """The deposit was collected: the plan activates, its installments are
    scheduled from the payment date, the money is posted (2.5% fee) and the
    merchant hears `payment.success`, `debit.scheduled` per installment and
    `goods.release` when the release rule says so (decided, with completion, by
    `milestones_reach`, like the engine's). Happens once per plan: the attempt
    and the plan each refuse a second transition."""
    at = at or timezone.now()
    with transaction.atomic(savepoint=False):
        attempt = _lock_attempt(attempt)
        plan = lock_plan(attempt.plan)
        attempt.processor_id = processor_id[:64]
        attempt.transition_to(
            DepositAttempt.Status.SUCCEEDED, at=at, update_fields=["processor_id"]
        )
        installments = Installment.objects.bulk_create(
            Installment(
                plan=plan,
                livemode=plan.merchant.livemode,
                sequence=sequence,
                amount=amount,
                original_amount=amount,
                currency=plan.currency,
                due_date=due,
                next_attempt_at=start_of_day(due),
                created_at=at,
                status_changed_at=at,
            )
            for sequence, (amount, due) in enumerate(
                zip(plan.installment_amounts, _due_dates(plan, at), strict=True),
                start=1,
            )
        )
        plan.transition_to(PaymentPlan.Status.ACTIVE, at=at)
        collection_post(
            merchant=plan.merchant,
            customer=plan.customer,
            amount=attempt.amount,
            reference=attempt.reference,
            processor_reference=attempt.reference,
            resource_type="payment_plan",
            resource_id=plan.public_id,
            currency=attempt.currency,
            description=f"Deposit, order {plan.order_reference}",
        )
        reached = milestones_reach(plans=[plan], at=at)
        emit_events(
            merchant=plan.merchant,
            events=[
                events.payment_success(plan, attempt, channel=attempt.channel),
                *(events.debit_scheduled(plan, row) for row in installments),
                *(event for _, event in reached.plan_events()),
            ],
        )
    return plan


def deposit_failed(
    *, attempt: DepositAttempt, reason: str, message: str = ""
) -> DepositAttempt:
    """The deposit was declined: the attempt ends, the plan stays pending for
    another method, and the merchant hears `payment.failed` with the reason."""
    with transaction.atomic(savepoint=False):
        attempt = _lock_attempt(attempt)
        attempt.failure_reason = failure_reason(reason)
        attempt.gateway_response = message[:255]
        attempt.transition_to(
            DepositAttempt.Status.FAILED,
            update_fields=["failure_reason", "gateway_response"],
        )
        plan = attempt.plan
        emit_events(
            merchant=plan.merchant,
            events=[
                events.payment_failed(
                    plan, attempt.failure_reason, channel=attempt.channel
                )
            ],
        )
    return attempt


def deposit_instructions_record(*, attempt: DepositAttempt, offline) -> DepositAttempt:
    """Keep what the customer pays by (`offline`, the processor's pending
    `OfflineCharge`: the account or the code, until when) on the attempt still
    in flight; an attempt settled meanwhile keeps what it has."""
    with transaction.atomic(savepoint=False):
        attempt = _lock_attempt(attempt)
        if attempt.status != DepositAttempt.Status.PROCESSING:
            return attempt
        attempt.bank_name = offline.bank_name[:100]
        attempt.account_number = offline.account_number[:20]
        attempt.account_name = offline.account_name[:200]
        attempt.ussd_code = (offline.ussd_code or offline.display_text)[:60]
        attempt.processor_id = offline.processor_id[:64]
        if offline.expires_at is not None:
            attempt.expires_at = min(attempt.expires_at, offline.expires_at)
        attempt.save(
            update_fields=[
                "bank_name",
                "account_number",
                "account_name",
                "ussd_code",
                "processor_id",
                "expires_at",
            ]
        )
    return attempt


def failure_reason(reason: str) -> str:
    return decline_of(reason).reason


def plan_cancel(*, plan: PaymentPlan) -> PaymentPlan:
    """A pending plan whose checkout ended without a deposit."""
    with transaction.atomic(savepoint=False):
        plan = lock_plan(plan)
        plan.transition_to(PaymentPlan.Status.CANCELLED)
    return plan
