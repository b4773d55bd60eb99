"""Reads of refunds: a plan's collections and what each has left (asked of
the ledger), a plan's refunds, the answer kept for an `Idempotency-Key`."""

import uuid

from django.db.models import Prefetch, QuerySet, Sum

from payments.ledger import selectors as ledger_selectors

from ..plans.models import Installment, PaymentPlan
from .allocation import Allocation, Collected, Owed, allocate
from .models import Refund, RefundIdempotencyRecord, RefundPart


def plan_collected(plan: PaymentPlan) -> list[Collected]:
    """The plan's collections newest first, each with what it has left (the
    ledger's one rule, `collections_left`): its deposit and every installment
    or early payment collected (an early payment of one installment names it,
    a payoff names the plan)."""
    installment_ids = Installment.objects.filter(plan=plan).values("public_id")
    return [
        Collected(reference=collection.reference, left=collection.left)
        for collection in ledger_selectors.collections_left(
            {"payment_plan": [plan.public_id], "installment": installment_ids}
        )
    ]


def refunds_with_parts() -> QuerySet[Refund]:
    return Refund.objects.select_related("plan__merchant").prefetch_related(
        Prefetch("parts", queryset=RefundPart.objects.order_by("number"))
    )


def refunds_of_plan(plan: PaymentPlan) -> QuerySet[Refund]:
    """Newest first."""
    return refunds_with_parts().filter(plan=plan).order_by("-created_at", "-id")


def refund_idempotency_record(
    *, merchant, key: uuid.UUID
) -> RefundIdempotencyRecord | None:
    return (
        RefundIdempotencyRecord.objects.select_related("refund")
        .filter(merchant=merchant, key=key)
        .first()
    )


def owed_of(installments) -> list[Owed]:
    """The plan's installments not yet settled, as the allocation reads them."""
    return [
        Owed(
            pk=row.pk,
            sequence=row.sequence,
            due_date=row.due_date,
            # What is still owed: a partial collection's money is refunded
            # from its collection, never reduced off the installment.
            amount=row.amount_owed,
            unpaid=row.status != Installment.Status.PROCESSING,
        )
        for row in installments
    ]


def refund_preview(plan: PaymentPlan, amount: int) -> Allocation:
    """Where a refund of `amount` would go now, without locking or changing
    anything (a confirmation page shows it before the merchant confirms; the
    refund itself allocates again under the plan's lock). Raises what
    `refund_create` would: RefundExceedsRefundable, PlanBusy."""
    rows = Installment.objects.filter(
        plan=plan, status__in=(*Installment.UNPAID, Installment.Status.PROCESSING)
    )
    return allocate(
        amount=amount,
        owed=owed_of(rows),
        collected=plan_collected(plan),
        limit=plan.total_amount - plan.amount_refunded,
    )


def amount_refund_pending(plan: PaymentPlan) -> int:
    """Of `plan.amount_refunded`, the money of refund parts still open: on its
    way to the customer, and back (refundable again) if it fails. Read from
    the prefetched refunds and parts when there are, else in one query."""
    if not plan.amount_refunded:
        return 0
    prefetched = getattr(plan, "_prefetched_objects_cache", {}).get("refunds")
    if prefetched is not None:
        return sum(refund.amount_pending for refund in prefetched)
    return (
        RefundPart.objects.filter(refund__plan=plan, status__in=RefundPart.OPEN)
        .order_by()
        .aggregate(total=Sum("amount"))["total"]
        or 0
    )
