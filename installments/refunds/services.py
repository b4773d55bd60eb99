"""Creating a plan refund (DESIGN section 14): claim, then call.

In one durable transaction holding the plan's lock: the allocation
(`allocation.py`), the installments reduced or cancelled, the refund and its
parts (`requesting`), the money of each part moved into `refunds_in_transit`
(the fee given back by the one fee rule), `plan.amount_refunded`, the events,
the customer's notice of change when unpaid installments were reduced, and the
`Idempotency-Key` record. After the commit, never inside a transaction,
each part is asked of the processor (`settlement.parts_request`).
"""

import uuid
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from config.api.idempotency import IDEMPOTENCY_RETENTION
from merchants.audit.actors import SYSTEM, Actor
from merchants.audit.services import audit_record
from payments.ledger.services import refund_post
from webhooks.services import emit_events

from ..cancellation.services import (
    installments_cancel,
    open_installments_lock,
    plan_cancel_when_nothing_left,
)
from ..notifications import notices
from ..notifications.services import (
    refund_receipt_send,
    schedule_change_notice_send,
)
from ..plans import events
from ..plans.models import Installment, PaymentPlan
from ..plans.services import lock_plan
from . import selectors
from .allocation import Allocation, allocate
from .errors import RefundDuringDispute
from .models import (
    Refund,
    RefundIdempotencyRecord,
    RefundPart,
    RefundReduction,
    part_reference,
)
from .settlement import parts_request, posting

CREATED = 201


@dataclass(frozen=True)
class RefundAnswer:
    """A refund and how to answer for it: freshly created or replayed."""

    refund: Refund
    status_code: int
    replayed: bool


def _live_record(*, merchant, key: uuid.UUID) -> RefundIdempotencyRecord | None:
    record = selectors.refund_idempotency_record(merchant=merchant, key=key)
    if record is not None and record.expires_at > timezone.now():
        return record
    return None


def _replay(record: RefundIdempotencyRecord) -> RefundAnswer:
    refund = selectors.refunds_with_parts().get(pk=record.refund_id)
    return RefundAnswer(refund=refund, status_code=CREATED, replayed=True)


def refund_create(
    *,
    plan: PaymentPlan,
    amount: int,
    reason: str,
    idempotency_key: uuid.UUID | None = None,
    actor: Actor = SYSTEM,
) -> RefundAnswer:
    """Refund `amount` off the plan, or replay the refund `idempotency_key`
    created for this merchant in the last 24 hours (whatever this body says).

    Raises RefundExceedsRefundable (422) and PlanBusy (409), changing nothing.
    Simultaneous requests with one key create one refund: the record's unique
    (merchant, key) constraint fails the losers, which answer with the winner's.
    """
    merchant = plan.merchant
    if idempotency_key is not None:
        record = _live_record(merchant=merchant, key=idempotency_key)
        if record is not None:
            return _replay(record)
    try:
        refund = _refund_record(
            plan=plan,
            amount=amount,
            reason=reason,
            idempotency_key=idempotency_key,
            actor=actor,
        )
    except IntegrityError:
        record = (
            _live_record(merchant=merchant, key=idempotency_key)
            if idempotency_key is not None
            else None
        )
        if record is None:
            raise
        return _replay(record)
    parts_request(refund_pk=refund.pk)
    refund = selectors.refunds_with_parts().get(pk=refund.pk)
    return RefundAnswer(refund=refund, status_code=CREATED, replayed=False)


@transaction.atomic(durable=True)
def _refund_record(
    *, plan: PaymentPlan, amount: int, reason: str, idempotency_key, actor: Actor
) -> Refund:
    now = timezone.now()
    plan = lock_plan(plan)
    if plan.open_disputes:
        # DESIGN section 19: the disputed money is held; refunding beside the
        # dispute could give the customer the same money twice.
        raise RefundDuringDispute()
    if idempotency_key is not None:
        # A key freed by its 24 hours is taken again by this refund.
        RefundIdempotencyRecord.objects.filter(
            merchant=plan.merchant, key=idempotency_key, expires_at__lte=now
        ).delete()
    rows = open_installments_lock(plan)
    allocation = allocate(
        amount=amount,
        owed=selectors.owed_of(rows),
        collected=selectors.plan_collected(plan),
        limit=plan.total_amount - plan.amount_refunded,
    )
    refund = Refund.objects.create(
        plan=plan,
        merchant=plan.merchant,
        amount_requested=amount,
        amount=amount,
        amount_reduced=allocation.reduced,
        amount_returned=allocation.returned,
        currency=plan.currency,
        reason=reason[:255],
        status=Refund.Status.PENDING if allocation.parts else Refund.Status.PROCESSED,
        created_at=now,
        status_changed_at=now,
        processed_at=None if allocation.parts else now,
    )
    cancelled = _reduce(refund, allocation, {row.pk: row for row in rows}, at=now)
    _parts_open(refund, allocation, plan=plan, at=now)
    plan.amount_refunded += amount
    plan.save(update_fields=["amount_refunded", "updated_at"])
    plan_events = []
    if cancelled and plan_cancel_when_nothing_left(plan, at=now):
        plan_events.append(events.plan_cancelled(plan))
    refund_events = [events.refund_created(refund)]
    if refund.status == Refund.Status.PROCESSED:
        refund_events.append(events.refund_settled(refund))
        refund_receipt_send(refund)
    if allocation.reductions:
        _customer_notify(plan, refund)
    emit_events(merchant=plan.merchant, events=refund_events + plan_events)
    _remembered(refund, idempotency_key=idempotency_key, actor=actor, at=now)
    return refund


def _remembered(refund: Refund, *, idempotency_key, actor: Actor, at) -> None:
    """What the refund leaves besides the money, in its transaction: the
    idempotency record of its key, and the audit log's row."""
    if idempotency_key is not None:
        RefundIdempotencyRecord.objects.create(
            merchant=refund.merchant,
            key=idempotency_key,
            refund=refund,
            created_at=at,
            expires_at=at + IDEMPOTENCY_RETENTION,
        )
    audit_record(
        merchant=refund.merchant,
        action="refund.created",
        actor=actor,
        object_type="refund",
        object_id=refund.public_id,
        changes={
            "amount": [None, refund.amount_requested],
            "payment_plan": [None, refund.plan.public_id],
        },
    )


def _customer_notify(plan: PaymentPlan, refund: Refund) -> None:
    """The notice of a refund that changed what the customer owes (DESIGN
    section 18), once per refund. A refund of money only changes nothing owed:
    its receipt says what it did."""
    schedule_change_notice_send(
        plan=plan,
        subject=refund.public_id,
        change=notices.refunded(
            amount=refund.amount,
            reduced=refund.amount_reduced,
            returned=refund.amount_returned,
            why=refund.reason,
        ),
    )


def _reduce(
    refund: Refund, allocation: Allocation, rows: dict[int, Installment], *, at
) -> bool:
    """Take the reductions off the installments; True when any was cancelled."""
    cancelling = []
    for reduction in allocation.reductions:
        row = rows[reduction.pk]
        row.amount -= reduction.amount
        if reduction.cancels:
            cancelling.append(row)
        else:
            row.save(update_fields=["amount", "updated_at"])
    # Reduced to nothing owed and cancelled in one UPDATE (only a cancelled
    # one owes nothing): down to what a partial collection took of it, which
    # stays collected (refunded from its collection, DESIGN section 15).
    installments_cancel(cancelling, at=at, same={"amount": F("amount_paid")})
    RefundReduction.objects.bulk_create(
        RefundReduction(
            refund=refund,
            installment_id=reduction.pk,
            amount=reduction.amount,
            created_at=at,
        )
        for reduction in allocation.reductions
    )
    return bool(cancelling)


def _parts_open(refund: Refund, allocation: Allocation, *, plan, at) -> None:
    """The parts, `requesting`, and their money into refunds_in_transit."""
    for number, part in enumerate(allocation.parts, start=1):
        row = RefundPart.objects.create(
            refund=refund,
            number=number,
            reference=part_reference(refund.public_id, number),
            collection_reference=part.collection_reference,
            amount=part.amount,
            currency=refund.currency,
            created_at=at,
            status_changed_at=at,
            # Claimed for the request made right after the commit: the poll
            # asks again only if that one got no answer.
            last_requested_at=at,
        )
        refund_post(part=posting(row, refund, plan), remaining=part.left_before)


def refund_idempotency_records_purge() -> int:
    """Delete records past their 24 hours; their keys are free again either way."""
    deleted, _ = RefundIdempotencyRecord.objects.filter(
        expires_at__lte=timezone.now()
    ).delete()
    return deleted
