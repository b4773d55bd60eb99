"""Claiming installments for an early payment, the way the engine claims them
(installments/collection/claims.py): in one short durable transaction, before
the processor hears anything, each installment moves to `processing` through the
state machine with its next attempt number and a lease (`next_attempt_at`),
taken with the engine's row lock (`FOR UPDATE SKIP LOCKED`, of the installments
only), so an engine pass and an early payment never both hold one installment.

The plan's lock comes first (as for refunds and cancellation): one early payment
of a plan at a time. An installment another caller holds (the engine claiming
it) or has in flight is not paid twice: 409 `payment_in_progress`.
"""

from datetime import datetime

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from config.api.ids import looks_like_public_id
from payments.gateway.processors.base import PayChannel

from ..paylinks.selectors import is_overdue
from ..plans.errors import InstallmentNotFound, PaymentInProgress, PlanNotCollectable
from ..plans.models import Installment, PaymentPlan
from ..plans.rules import LEASE
from .errors import InstallmentNotPayable
from .models import (
    EarlyPayment,
    EarlyPaymentItem,
    installment_early_reference,
    payoff_reference,
)

Status = Installment.Status
UNPAID = Installment.UNPAID


def _busy(what: str) -> PaymentInProgress:
    return PaymentInProgress(
        f"{what} is being collected right now; check the plan again in a moment "
        "instead of paying a second time."
    )


def _locked(queryset) -> list[Installment]:
    """The engine's lock: rows another transaction holds are skipped."""
    return list(
        queryset.select_for_update(skip_locked=True, of=("self",)).order_by("pk")
    )


def _one(plan: PaymentPlan, installment_id: str) -> list[Installment]:
    if not looks_like_public_id(installment_id, "inst"):
        raise InstallmentNotFound()
    rows = plan.installments.filter(public_id=installment_id)
    locked = _locked(rows)
    if not locked:
        if rows.exists():
            raise _busy("This installment")
        raise InstallmentNotFound()
    [row] = locked
    if row.status == Status.PROCESSING:
        raise _busy(f"Installment {row.sequence}")
    if row.status not in UNPAID:
        raise InstallmentNotPayable(
            f"Installment {row.sequence} is {row.status}: there is nothing to pay "
            "on it now."
        )
    return locked


def _everything_left(plan: PaymentPlan) -> list[Installment]:
    rows = plan.installments.filter(status__in=(*UNPAID, Status.PROCESSING))
    expected = set(rows.values_list("pk", flat=True))
    locked = _locked(rows)
    if {row.pk for row in locked} != expected or any(
        row.status == Status.PROCESSING for row in locked
    ):
        raise _busy("An installment of this plan")
    if not locked:
        raise PlanNotCollectable()
    return locked


def _overdue(plan: PaymentPlan, today) -> list[Installment]:
    """Every unpaid installment of the plan that is overdue (a pay link's
    "everything overdue": past its due date, or failed or waiting for a
    method); each must be free to claim."""
    rows = [
        row
        for row in plan.installments.filter(status__in=(*UNPAID, Status.PROCESSING))
        if is_overdue(row, today)
    ]
    locked = _locked(plan.installments.filter(pk__in=[row.pk for row in rows]))
    if {row.pk for row in locked} != {row.pk for row in rows} or any(
        row.status not in UNPAID for row in locked
    ):
        raise _busy("An overdue installment of this plan")
    if not locked:
        raise InstallmentNotPayable("Nothing is overdue on this plan now.")
    return locked


def _claimed(
    plan: PaymentPlan, installment_id: str | None, overdue: bool, now: datetime
) -> tuple[list[Installment], bool]:
    """The installments to claim (locked), and whether it is one charge of
    several (a `payoff`-kind payment)."""
    if overdue:
        rows = _overdue(plan, timezone.localdate(now))
        return rows, len(rows) > 1
    if installment_id is None:
        return _everything_left(plan), True
    return _one(plan, installment_id), False


def _next_number(plan: PaymentPlan, rows: list[Installment], payoff: bool) -> int:
    """k of the next reference (the plan is locked: no one else counts now)."""
    if payoff:
        return plan.early_payments.filter(kind=EarlyPayment.Kind.PAYOFF).count() + 1
    return (
        EarlyPaymentItem.objects.filter(
            installment=rows[0], early_payment__kind=EarlyPayment.Kind.INSTALLMENT
        ).count()
        + 1
    )


def _record(
    plan: PaymentPlan,
    rows: list[Installment],
    *,
    method,
    channel: str,
    payoff: bool,
    now,
    lease_end,
    expires_at,
) -> EarlyPayment:
    """The early payment, with what each installment was before it."""
    number = _next_number(plan, rows, payoff)
    payment = EarlyPayment.objects.create(
        plan=plan,
        kind=EarlyPayment.Kind.PAYOFF if payoff else EarlyPayment.Kind.INSTALLMENT,
        number=number,
        reference=payoff_reference(plan.public_id, number)
        if payoff
        else installment_early_reference(rows[0].public_id, number),
        customer_id=plan.customer_id,
        payment_method=method,
        channel=channel,
        expires_at=expires_at,
        # What is still owed: a partial collection took the rest of it.
        amount=sum(row.amount - row.amount_paid for row in rows),
        currency=plan.currency,
        leased_until=lease_end,
        created_at=now,
        status_changed_at=now,
    )
    EarlyPaymentItem.objects.bulk_create(
        EarlyPaymentItem(
            early_payment=payment,
            installment=row,
            amount=row.amount - row.amount_paid,
            attempt=row.attempts + 1,
            prior_status=row.status,
            prior_next_attempt_at=row.next_attempt_at,
            prior_last_failure_reason=row.last_failure_reason,
        )
        for row in rows
    )
    return payment


def _hold(rows: list[Installment], payment: EarlyPayment, *, now, lease_end) -> None:
    """The engine's claim: the next attempt, leased (collection/claims.py)."""
    for row in rows:
        row.attempts += 1
        row.next_attempt_at = lease_end
        row.moved_by_early_payment = payment
    Installment.bulk_transition(
        rows,
        Status.PROCESSING,
        at=now,
        same={"attempts": F("attempts") + 1, "next_attempt_at": lease_end},
    )


def early_payment_claim(
    *,
    plan: PaymentPlan,
    method,
    installment_id: str | None,
    now: datetime,
    channel: str | None = None,
    expires_at: datetime | None = None,
    overdue: bool = False,
) -> EarlyPayment:
    """Claim one unpaid installment (`installment_id`) or, when None, every
    unpaid installment of the plan (`overdue`: every overdue one; one charge
    of several installments is a `payoff`-kind payment, `<plan id>_po<k>`,
    whether it pays all that is left or what is overdue), for one charge on
    `method`, or (`method` None) for a bank transfer or USSD payment by
    `channel` that waits for the customer until `expires_at`; committed
    before any processor call. Raises 409 `plan_not_collectable` (plan not
    active, nothing left), `installment_not_payable`, `payment_in_progress`,
    or 404 for an installment that is not the plan's.

    A saved method's charge is leased for LEASE (then the engine's recovery
    verifies it); an offline one until it expires (then the expiry sweep,
    offline.py, ends it): its installments stay `processing` that long."""
    if overdue and installment_id is not None:
        raise ValueError("overdue pays the overdue installments, not one named")
    if method is not None:
        channel, lease_end = method.channel, now + LEASE
    else:
        if channel not in PayChannel.OFFLINE or expires_at is None:
            raise ValueError("an offline payment needs its channel and expiry")
        lease_end = expires_at
    with transaction.atomic(durable=True):
        plan = PaymentPlan.objects.select_for_update().get(pk=plan.pk)
        if plan.status != PaymentPlan.Status.ACTIVE:
            raise PlanNotCollectable(
                f"This plan is {plan.status}: only an active plan can be paid early."
            )
        if plan.open_disputes:
            # DESIGN section 19: nothing of a disputed plan is charged.
            raise PlanNotCollectable(
                "This plan has an open dispute: nothing is collected until it is "
                "resolved."
            )
        if plan.early_payments.filter(status=EarlyPayment.Status.PROCESSING).exists():
            raise _busy("An early payment of this plan")
        rows, payoff = _claimed(plan, installment_id, overdue, now)
        payment = _record(
            plan,
            rows,
            method=method,
            channel=channel,
            payoff=payoff,
            now=now,
            lease_end=lease_end,
            expires_at=expires_at,
        )
        _hold(rows, payment, now=now, lease_end=lease_end)
    return payment
