"""Settling an early payment once the processor has decided, in one transaction
holding the plan's lock, then the payment's, then its installments':

- succeeded: every installment it claimed is `paid` under its reference (one
  attempt each, counted by the score like any paid installment), ONE collection
  in the ledger for the whole charge (the installment's id as its reference for
  one installment, as the engine posts it, so the database refuses a second
  collection of it; the payoff's reference for a payoff), `installment.paid` and
  `payment_plan.installment_paid` per installment, then the plan's milestones
  (`payment_plan.completed`, `goods.release`);
- failed: every installment goes back exactly as it was (status, attempts,
  retry time, last failure); the moves name the early payment, so the score
  counts no failed attempt, and the merchant hears nothing (no collection
  failed), except for a bank transfer or USSD payment that expired
  (`payment.failed` with the reason `expired`, once: the payment moves once).

Runs in the caller's transaction (`early_payment_record`: the processor's
`charge.success`) or its own (`early_payment_settle`: the customer's request and
the engine's recovery). A payment already settled is returned as it is.
"""

import logging
from collections.abc import Callable, Iterable

from django.db import transaction
from django.utils import timezone

from payments.ledger.services import Collection, collections_post
from payments.methods.services.saved_charges import ChargeOutcome
from webhooks.services import emit_events

from ..deposits.services import failure_reason
from ..plans import events, scores
from ..plans.milestones import milestones_reach
from ..plans.models import Installment, PaymentPlan
from .models import EarlyPayment, EarlyPaymentItem

logger = logging.getLogger("installments.collection")

Status = Installment.Status


def _collection(
    plan: PaymentPlan, payment: EarlyPayment, rows: list[Installment]
) -> Collection:
    if payment.kind == EarlyPayment.Kind.PAYOFF:
        sequences = ", ".join(str(row.sequence) for row in rows)
        # Everything left, or (from a pay link) everything overdue.
        what = f"Installments {sequences} of {plan.installment_count} in one payment"
        reference, resource = payment.reference, ("payment_plan", plan.public_id)
    else:
        [row] = rows
        what = f"Installment {row.sequence} of {plan.installment_count}, paid early"
        reference, resource = row.public_id, ("installment", row.public_id)
    return Collection(
        merchant_pk=plan.merchant_id,
        merchant_public_id=plan.merchant.public_id,
        livemode=plan.merchant.livemode,
        customer_pk=plan.customer_id,
        amount=payment.amount,
        reference=reference,
        processor_reference=payment.reference,
        resource_type=resource[0],
        resource_id=resource[1],
        currency=payment.currency,
        description=f"{what}, order {plan.order_reference}"[:255],
    )


def _succeeded(plan, payment, rows, outcome: ChargeOutcome, now) -> None:
    for row in rows:
        row.processor_reference = payment.reference
        row.next_attempt_at = None
        row.moved_by_early_payment = payment
    Installment.bulk_transition(
        rows,
        Status.PAID,
        at=now,
        same={"next_attempt_at": None, "processor_reference": payment.reference},
    )
    payment.processor_id = outcome.processor_id[:64]
    payment.gateway_response = outcome.message[:255]
    payment.transition_to(
        EarlyPayment.Status.SUCCEEDED,
        at=now,
        update_fields=["processor_id", "gateway_response"],
    )
    collections_post([_collection(plan, payment, rows)])
    reached = milestones_reach(plans=[plan], at=now)
    emit_events(
        merchant=plan.merchant,
        events=[
            *(
                event
                for row in rows
                for event in events.installment_paid_early(
                    row, plan, payment.reference, channel=payment.channel
                )
            ),
            *(event for _, event in reached.plan_events()),
        ],
    )
    scores.scores_refresh(customer_pks={plan.customer_id})


def _declined(plan, payment, items, rows, outcome: ChargeOutcome, now) -> None:
    by_pk = {row.pk: row for row in rows}
    for item in items:
        row = by_pk[item.installment_id]
        row.attempts = item.attempt - 1
        # A plan that defaulted meanwhile collects nothing more.
        active = plan.status == PaymentPlan.Status.ACTIVE
        row.next_attempt_at = item.prior_next_attempt_at if active else None
        row.last_failure_reason = item.prior_last_failure_reason
        row.moved_by_early_payment = payment
        Installment.bulk_transition(
            [row],
            item.prior_status,
            at=now,
            same={
                "attempts": row.attempts,
                "next_attempt_at": row.next_attempt_at,
                "last_failure_reason": row.last_failure_reason,
            },
        )
    payment.failure_reason = failure_reason(outcome.failure_reason)
    payment.gateway_response = outcome.message[:255]
    payment.transition_to(
        EarlyPayment.Status.FAILED,
        at=now,
        update_fields=["failure_reason", "gateway_response"],
    )
    if payment.expired:
        # The customer who was answered with the account or code is gone by
        # now: the merchant hears it (a decline answered at once is the
        # customer's 402 only).
        emit_events(
            merchant=plan.merchant,
            events=[
                events.payment_failed(
                    plan, payment.failure_reason, channel=payment.channel
                )
            ],
        )


def early_payment_record(
    *, payment: EarlyPayment, outcome: ChargeOutcome
) -> EarlyPayment:
    """Record a decided outcome (succeeded or failed) of a payment still in
    flight, inside the caller's transaction; anything else changes nothing."""
    if not (outcome.succeeded or outcome.failed):
        return payment
    now = timezone.now()
    with transaction.atomic(savepoint=False):
        plan = (
            PaymentPlan.objects.select_for_update(of=("self",))
            .select_related("merchant", "customer")
            .get(pk=payment.plan_id)
        )
        payment = EarlyPayment.objects.select_for_update().get(pk=payment.pk)
        if payment.status != EarlyPayment.Status.PROCESSING:
            return payment
        items = list(EarlyPaymentItem.objects.filter(early_payment=payment))
        rows = list(
            Installment.objects.select_for_update(of=("self",))
            .filter(pk__in=[item.installment_id for item in items])
            .order_by("pk")
        )
        rows.sort(key=lambda row: row.sequence)
        if outcome.succeeded:
            _succeeded(plan, payment, rows, outcome, now)
        else:
            _declined(plan, payment, items, rows, outcome, now)
    return payment


def early_payment_settle(
    *, payment: EarlyPayment, outcome: ChargeOutcome
) -> EarlyPayment:
    """`early_payment_record` in its own durable transaction; an undecided
    outcome leaves the payment in flight (returned as it is, reloaded)."""
    if not (outcome.succeeded or outcome.failed):
        return EarlyPayment.objects.get(pk=payment.pk)
    with transaction.atomic(durable=True):
        return early_payment_record(payment=payment, outcome=outcome)


def early_payments_settle_each(
    payments: Iterable[EarlyPayment],
    settle: Callable[[EarlyPayment], EarlyPayment],
    *,
    failure: str,
) -> int:
    """`settle` each payment (it answers the payment as it is now); how many
    are no longer in flight. Never raises: a payment that cannot be settled
    now is logged (`failure`, formatted with its reference) and stays in
    flight, to be tried on a later pass."""
    settled = 0
    for payment in payments:
        try:
            payment = settle(payment)
        except Exception:
            logger.exception(failure, payment.reference)
            continue
        if payment.status != EarlyPayment.Status.PROCESSING:
            settled += 1
    return settled
