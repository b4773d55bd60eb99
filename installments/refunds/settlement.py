"""Asking the processor for a refund's parts and settling what it answers.

A part is asked for after the refund's commit, outside any transaction, under
its own reference (`rf_..._<n>`), so asking again after a lost answer finds the
refund already made instead of refunding twice. Every answer, whether the
request's own, the processor's event (endpoint 24, re-verified by the gateway),
the sandbox's settlement pass or the poll, is applied by `outcome_apply`, in a
transaction holding the plan's lock, once: a part's status never moves back.

- `pending`: the processor has it;
- `processed`: the money left the processor (`refund_settled`);
- `failed`: the money goes back to the wallet and the fee account by the fee
  rule on what the collection has left now (`refund_returned`), and is
  refundable again: in the same transaction it moves from the refund's
  `amount_returned` (and `amount`) to its `amount_failed`, and
  `plan.amount_refunded` goes down by it, so the plan and the refund agree at
  every moment.

When no part is open any more the refund is `processed`, or `failed` if a part
failed, and the merchant hears `refund.processed` or `refund.failed` once.
"""

import logging
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from payments.gateway.errors import ProcessorError, ProcessorRefused, ProcessorTimeout
from payments.gateway.processors import processor_of
from payments.gateway.services.refunds import (
    RefundOutcome,
    processor_refund_check,
    processor_refund_request,
)
from payments.ledger.selectors import collection_left, held_in_disputes
from payments.ledger.services import (
    RefundPosting,
    refund_returned_post,
    refund_settled_post,
)
from webhooks.services import emit_events

from ..notifications.services import refund_receipt_send
from ..plans import events
from ..plans.models import PaymentPlan
from .models import Refund, RefundPart

logger = logging.getLogger("installments.refunds")

Status = RefundPart.Status
# A part still `requesting` this long after it was last asked for is asked
# again (same reference) by the poll: beyond the processor calls' timeouts.
ASK_AGAIN_AFTER = timedelta(minutes=2)
# A `pending` part is looked up at the processor at most this often.
CHECK_EVERY = timedelta(minutes=10)
POLL_LIMIT = 200
PROCESSED, PENDING, FAILED = "processed", "pending", "failed"


def posting(part: RefundPart, refund: Refund, plan: PaymentPlan) -> RefundPosting:
    """What the ledger's refund postings need of a part."""
    return RefundPosting(
        merchant=plan.merchant,
        customer=plan.customer,
        reference=part.reference,
        collection_reference=part.collection_reference,
        refund_id=refund.public_id,
        amount=part.amount,
        currency=part.currency,
        description=f"Refund {refund.public_id}, order {plan.order_reference}"[:255],
    )


def parts_request(*, refund_pk: int) -> None:
    """Ask the processor for every part of the refund still `requesting`.
    Never inside a transaction; never raises for the processor's failures (a
    part whose outcome is unknown stays `requesting` for the poll)."""
    for part in (
        RefundPart.objects.filter(refund_id=refund_pk, status=Status.REQUESTING)
        .select_related("refund")
        .order_by("number")
    ):
        try:
            part_request(part=part)
        except Exception:
            # The refund is committed: its answer stands; the poll asks again.
            logger.exception("Refund %s could not be requested", part.reference)


def part_request(*, part: RefundPart) -> None:
    """One request (or a repeat after a lost answer) for one part, by whoever
    claims it first: the claim moves `last_requested_at` on from the value this
    caller read, so two workers never ask for one part at once."""
    claimed = RefundPart.objects.filter(
        pk=part.pk,
        status=Status.REQUESTING,
        last_requested_at=part.last_requested_at,
    ).update(requests=F("requests") + 1, last_requested_at=timezone.now())
    if not claimed:
        return
    try:
        outcome = processor_refund_request(
            # Asked of the processor of the refund's side: the collection was
            # taken there (the sandbox for a test plan).
            processor=processor_of(part.refund.merchant),
            reference=part.reference,
            transaction_reference=part.collection_reference,
            amount=part.amount,
            currency=part.currency,
            note=part.refund.reason,
        )
    except ProcessorRefused as error:
        logger.warning("Refund %s refused by the processor: %s", part.reference, error)
        with transaction.atomic(durable=True):
            part_settle(
                part_pk=part.pk,
                status=FAILED,
                processor_status=(error.processor_code or "refused")[:32],
            )
        return
    except (ProcessorTimeout, ProcessorError) as error:
        logger.warning(
            "Refund %s: no answer from the processor (%s); asked again later",
            part.reference,
            error,
        )
        return
    with transaction.atomic(durable=True):
        outcome_apply(outcome)


def outcome_apply(outcome: RefundOutcome) -> bool:
    """The registered refund handler (payments.gateway.hooks): settle the part
    under `outcome.reference` inside the caller's transaction. False when the
    reference is no part of a plan refund."""
    part = RefundPart.objects.filter(reference=outcome.reference).first()
    if part is None:
        return False
    part_settle(
        part_pk=part.pk,
        status=outcome.status,
        refund_id=outcome.refund_id,
        processor_status=outcome.processor_status,
    )
    return True


def part_settle(
    *, part_pk: int, status: str, refund_id: str = "", processor_status: str = ""
) -> RefundPart:
    """Apply what the processor said of a part, once (inside the caller's
    transaction; takes the plan's lock, then the part's)."""
    with transaction.atomic(savepoint=False):
        plan_pk = (
            RefundPart.objects.filter(pk=part_pk)
            .values_list("refund__plan_id", flat=True)
            .get()
        )
        plan = (
            PaymentPlan.objects.select_for_update(of=("self",))
            .select_related("merchant", "customer")
            .get(pk=plan_pk)
        )
        part = (
            RefundPart.objects.select_for_update(of=("self",))
            .select_related("refund")
            .get(pk=part_pk)
        )
        if part.status in (Status.PROCESSED, Status.FAILED):
            return part
        part.processor_refund_id = refund_id[:64] or part.processor_refund_id
        part.processor_status = processor_status[:32] or part.processor_status
        noted = ["processor_refund_id", "processor_status"]
        if status == PROCESSED:
            part.transition_to(Status.PROCESSED, update_fields=noted)
            refund_settled_post(part=posting(part, part.refund, plan))
        elif status == FAILED:
            # What the collection has left while this part still counts
            # (and counting what a dispute opened since holds of it: the fee
            # rule's base, DESIGN section 19).
            reference = part.collection_reference
            remaining = collection_left(reference) + held_in_disputes(reference)
            part.transition_to(Status.FAILED, update_fields=noted)
            refund_returned_post(
                part=posting(part, part.refund, plan), remaining=remaining
            )
            _part_failed(part, plan)
        elif part.status == Status.REQUESTING:
            part.transition_to(Status.PENDING, update_fields=noted)
        else:
            part.save(update_fields=[*noted, "updated_at"])
        refund_settle(refund=part.refund, plan=plan)
    return part


def _part_failed(part: RefundPart, plan: PaymentPlan) -> None:
    """A failed part's money is no longer refunded: off the refund's `amount`
    and `amount_returned`, onto its `amount_failed`, and off the plan's
    `amount_refunded` (under the plan's lock, which every change of a refund
    holds)."""
    refund = part.refund
    refund.amount -= part.amount
    refund.amount_returned -= part.amount
    refund.amount_failed += part.amount
    refund.save(
        update_fields=["amount", "amount_returned", "amount_failed", "updated_at"]
    )
    plan.amount_refunded -= part.amount
    plan.save(update_fields=["amount_refunded", "updated_at"])


def refund_settle(*, refund: Refund, plan: PaymentPlan) -> None:
    """Once none of its parts is open, the refund is `processed` (or `failed`
    when a part failed) and the merchant hears it, once."""
    if refund.status != Refund.Status.PENDING:
        return
    statuses = set(refund.parts.values_list("status", flat=True))
    if statuses & set(RefundPart.OPEN):
        return
    final = (
        Refund.Status.FAILED if Status.FAILED in statuses else Refund.Status.PROCESSED
    )
    refund.plan = plan
    refund.transition_to(final)
    emit_events(merchant=plan.merchant, events=[events.refund_settled(refund)])
    if final == Refund.Status.PROCESSED:
        refund_receipt_send(refund)


def parts_poll(*, now: datetime | None = None, limit: int = POLL_LIMIT) -> int:
    """The poll (a schedule): ask again for parts whose request got no answer,
    look up parts the processor has not settled yet. Returns how many parts it
    asked about."""
    now = now or timezone.now()
    due = RefundPart.objects.filter(
        Q(status=Status.REQUESTING, last_requested_at__lte=now - ASK_AGAIN_AFTER)
        | Q(status=Status.PENDING, last_requested_at__lte=now - CHECK_EVERY)
    ).select_related("refund")
    asked = 0
    for part in due.order_by("last_requested_at", "id")[:limit]:
        asked += 1
        try:
            if part.status == Status.REQUESTING:
                part_request(part=part)
            else:
                _check(part, now=now)
        except Exception:
            logger.exception("Refund %s could not be polled", part.reference)
    return asked


def _check(part: RefundPart, *, now: datetime) -> None:
    claimed = RefundPart.objects.filter(
        pk=part.pk, status=Status.PENDING, last_requested_at=part.last_requested_at
    ).update(last_requested_at=now)
    if not claimed:
        return
    try:
        outcome = processor_refund_check(
            processor=processor_of(part.refund.merchant),
            reference=part.reference,
            transaction_reference=part.collection_reference,
            refund_id=part.processor_refund_id,
        )
    except (ProcessorTimeout, ProcessorError, ProcessorRefused) as error:
        logger.warning("Refund %s: lookup failed (%s)", part.reference, error)
        return
    if outcome is None:
        logger.error(
            "Refund %s is pending here but unknown to the processor", part.reference
        )
    # Otherwise the check has handed the outcome to the refund handlers, this
    # module's `outcome_apply` among them, in one transaction: applied once.
