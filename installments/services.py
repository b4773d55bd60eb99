"""Use-cases of payment plans: prepare at checkout, the deposit attempts, activation,
the release rule (DESIGN section 7).

These functions run inside their caller's transaction (`atomic(savepoint=False)`):
checkout completion owns the durable transactions and the session lock; these
own the plan's rows, money and events. Money moves to the ledger in the same
transaction as the state it belongs to; events go to the outbox there too.
"""

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from payments.ledger.services import collection_post
from webhooks.services import emit_event, emit_events

from . import rules
from .errors import PaymentInProgress
from .models import DepositAttempt, Installment, PaymentPlan, start_of_day

# The closed list of `payment.failed` reasons (docs/webhooks.md); a processor's
# other declines are reported as the bank's generic refusal.
FAILURE_REASONS = frozenset(
    {
        "insufficient_funds",
        "card_expired",
        "do_not_honor",
        "authorization_revoked",
        "no_payment_method",
        "processor_error",
    }
)
GENERIC_DECLINE = "do_not_honor"
RELEASE_ON_DEPOSIT = "on_deposit"
RELEASE_ON_COMPLETION = "on_completion"
PAID_STATUSES = (
    PaymentPlan.Status.ACTIVE,
    PaymentPlan.Status.COMPLETED,
    PaymentPlan.Status.DEFAULTED,
)


def deposit_reference(plan: PaymentPlan, number: int) -> str:
    """`<plan id>_d<attempt>`: one reference per attempt, never reused."""
    return f"{plan.public_id}_d{number}"


def lock_plan(plan: PaymentPlan) -> PaymentPlan:
    return (
        PaymentPlan.objects.select_for_update()
        .select_related("merchant", "customer")
        .get(pk=plan.pk)
    )


def plan_prepare(
    *,
    plan: PaymentPlan | None,
    merchant,
    customer,
    order_reference: str,
    currency: str,
    terms: rules.PlanTerms,
    score: int,
) -> PaymentPlan:
    """The checkout's pending plan with these terms: created on the first
    attempt, its terms (and customer) refreshed on every later one."""
    fields = {
        "customer": customer,
        "total_amount": terms.total_amount,
        "deposit_amount": terms.deposit_amount,
        "deposit_percent": terms.deposit_percent,
        "tier": terms.tier,
        "customer_score": score,
        "schedule_type": terms.schedule_type,
        "installment_count": terms.installment_count,
        "installment_amounts": list(terms.installment_amounts),
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


def deposit_attempt_open(*, plan: PaymentPlan, payment_method) -> DepositAttempt:
    """Claim the next deposit attempt of a pending plan (locked by the caller).

    Committed before the processor is called; while it is in flight no other
    attempt can open (409 `payment_in_progress`, and a database constraint)."""
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
            amount=plan.deposit_amount,
            currency=plan.currency,
        )


def _lock_attempt(attempt: DepositAttempt) -> DepositAttempt:
    return DepositAttempt.objects.select_for_update().get(pk=attempt.pk)


def deposit_succeeded(
    *, attempt: DepositAttempt, processor_id: str = "", at: datetime | None = None
) -> PaymentPlan:
    """The deposit was collected: the plan activates, its installments are
    scheduled from the payment date, the money is posted (2.5% fee) and the
    merchant hears `payment.success`, `debit.scheduled` per installment and
    `goods.release` when the release rule says so. Happens once per plan: the
    attempt and the plan each refuse a second transition."""
    at = at or timezone.now()
    with transaction.atomic(savepoint=False):
        attempt = _lock_attempt(attempt)
        plan = lock_plan(attempt.plan)
        attempt.processor_id = processor_id[:64]
        attempt.transition_to(
            DepositAttempt.Status.SUCCEEDED, at=at, update_fields=["processor_id"]
        )
        due_dates = rules.due_dates(
            start=timezone.localdate(at),
            schedule_type=plan.schedule_type,
            count=plan.installment_count,
        )
        installments = Installment.objects.bulk_create(
            Installment(
                plan=plan,
                sequence=sequence,
                amount=amount,
                currency=plan.currency,
                due_date=due,
                next_attempt_at=start_of_day(due),
                created_at=at,
                status_changed_at=at,
            )
            for sequence, (amount, due) in enumerate(
                zip(plan.installment_amounts, due_dates, strict=True), start=1
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
        events = [
            (
                "payment.success",
                {
                    **plan_resource(plan),
                    "amount": attempt.amount,
                    "currency": attempt.currency,
                },
            ),
            *(
                ("debit.scheduled", debit_scheduled_data(plan, installment))
                for installment in installments
            ),
            *goods_release_if_due(plan, at=at),
        ]
        emit_events(merchant=plan.merchant, events=events)
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
        emit_event(
            merchant=plan.merchant,
            event_type="payment.failed",
            data={**plan_resource(plan), "reason": attempt.failure_reason},
        )
    return attempt


def failure_reason(reason: str) -> str:
    return reason if reason in FAILURE_REASONS else GENERIC_DECLINE


def plan_cancel(*, plan: PaymentPlan) -> PaymentPlan:
    """A pending plan whose checkout ended without a deposit."""
    with transaction.atomic(savepoint=False):
        plan = lock_plan(plan)
        plan.transition_to(PaymentPlan.Status.CANCELLED)
    return plan


def plan_resource(plan: PaymentPlan) -> dict:
    return {
        "resourceType": "payment_plan",
        "resourceId": plan.public_id,
        "orderReference": plan.order_reference,
    }


def debit_scheduled_data(plan: PaymentPlan, installment: Installment) -> dict:
    return {
        "resourceType": "installment",
        "resourceId": installment.public_id,
        "paymentPlanId": plan.public_id,
        "orderReference": plan.order_reference,
        "amount": installment.amount,
        "currency": installment.currency,
        "dueDate": installment.due_date.isoformat(),
    }


def goods_release_due(plan: PaymentPlan) -> bool:
    """Whether the merchant's release rule is satisfied now.

    `on_deposit`: once the deposit is paid. `after_installments:N`: once N
    installments are paid (or all of them, when the plan has fewer than N).
    `on_completion`: when the plan is completed.
    """
    merchant = plan.merchant
    rule = merchant.release_rule
    paid = 0
    if rule not in (RELEASE_ON_DEPOSIT, RELEASE_ON_COMPLETION):
        paid = plan.installments.filter(status=Installment.Status.PAID).count()
    return release_due(
        rule=rule,
        after_installments=merchant.release_after_installments,
        status=plan.status,
        paid=paid,
        count=plan.installment_count,
    )


def release_due(
    *, rule: str, after_installments: int | None, status: str, paid: int, count: int
) -> bool:
    """The release rule on a plan with this status and `paid` of its `count`
    installments paid (the collection engine counts a batch's plans at once)."""
    if status not in PAID_STATUSES:
        return False
    if rule == RELEASE_ON_DEPOSIT:
        return True
    if rule == RELEASE_ON_COMPLETION:
        return status == PaymentPlan.Status.COMPLETED
    if after_installments is None:
        return False
    return paid >= min(after_installments, count)


def goods_release_if_due(plan: PaymentPlan, *, at: datetime) -> list[tuple[str, dict]]:
    """The `goods.release` event to emit, at most once per plan (the caller
    holds the plan's lock and emits what this returns)."""
    if plan.goods_released_at is not None or not goods_release_due(plan):
        return []
    plan.goods_released_at = at
    plan.save(update_fields=["goods_released_at", "updated_at"])
    return [("goods.release", plan_resource(plan))]
