"""Reads of refunds: a plan's collections and what each has left, a plan's
refunds, the answer kept for an `Idempotency-Key`."""

import uuid

from django.db.models import Prefetch, Q, QuerySet, Sum

from payments.ledger.models import LedgerTransaction

from ..models import Installment, PaymentPlan
from .allocation import Allocation, Collected, Owed, allocate
from .models import Refund, RefundIdempotencyRecord, RefundPart


def plan_collections(plan: PaymentPlan) -> list[tuple[str, int]]:
    """(processor reference, amount) of every collection of the plan, newest
    first: its deposit and every installment or early payment collected (an
    early payment of one installment names it, a payoff names the plan)."""
    installment_ids = Installment.objects.filter(plan=plan).values("public_id")
    return list(
        LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.COLLECTION)
        .filter(
            Q(resource_type="payment_plan", resource_id=plan.public_id)
            | Q(resource_type="installment", resource_id__in=installment_ids)
        )
        .order_by("-created_at", "-id")
        .values_list("processor_reference", "amount")
    )


def refunded_by_collection(references: list[str]) -> dict[str, int]:
    """What the refund parts not failed have taken from each collection."""
    return dict(
        RefundPart.objects.filter(collection_reference__in=references)
        .exclude(status=RefundPart.Status.FAILED)
        .order_by()
        .values("collection_reference")
        .annotate(total=Sum("amount"))
        .values_list("collection_reference", "total")
    )


def plan_collected(plan: PaymentPlan) -> list[Collected]:
    """The plan's collections newest first, each with what it has left."""
    collections = plan_collections(plan)
    taken = refunded_by_collection([reference for reference, _ in collections])
    return [
        Collected(reference=reference, left=amount - taken.get(reference, 0))
        for reference, amount in collections
    ]


def collection_left(reference: str) -> int:
    """What one collection has left: collected less the parts not failed."""
    collected = (
        LedgerTransaction.objects.filter(
            kind=LedgerTransaction.Kind.COLLECTION, processor_reference=reference
        )
        .values_list("amount", flat=True)
        .first()
    )
    if collected is None:
        raise ValueError(f"no collection has processor reference {reference!r}")
    return collected - refunded_by_collection([reference]).get(reference, 0)


def refunds_with_parts() -> QuerySet[Refund]:
    return Refund.objects.select_related("plan").prefetch_related(
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
