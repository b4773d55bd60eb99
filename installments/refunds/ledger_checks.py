"""Invariants between plan refunds and the ledger, run by `check_ledger`
(registered in InstallmentsConfig.ready()). The ledger checks on its own that
each collection keeps the fee of what it has left (payments/ledger/checks.py).
On one side at a time: that side's refunds, plans and postings."""

from collections import defaultdict
from collections.abc import Iterator

from django.db.models import F

from payments.ledger.checks import totals_by
from payments.ledger.hooks import NamedLedgerCheck
from payments.ledger.models import LedgerTransaction

from ..plans.models import Installment, PaymentPlan
from ..plans.purged import purged
from .models import Refund, RefundPart, RefundReduction

Kind = LedgerTransaction.Kind
CHUNK = 2000
EXPECTED = {
    RefundPart.Status.REQUESTING: {Kind.REFUND},
    RefundPart.Status.PENDING: {Kind.REFUND},
    RefundPart.Status.PROCESSED: {Kind.REFUND, Kind.REFUND_SETTLED},
    RefundPart.Status.FAILED: {Kind.REFUND, Kind.REFUND_RETURNED},
}


def refund_parts_match_postings(livemode: bool) -> Iterator[str]:
    """Each part has exactly the postings its status calls for, for its own
    amount, collection and merchant; every refund posting is a part's."""
    postings: dict[str, dict] = defaultdict(dict)
    for reference, kind, amount, collection, merchant_id in (
        LedgerTransaction.objects.filter(
            kind__in=(Kind.REFUND, Kind.REFUND_SETTLED, Kind.REFUND_RETURNED),
            livemode=livemode,
        )
        .values_list(
            "reference", "kind", "amount", "processor_reference", "merchant_id"
        )
        .iterator(chunk_size=CHUNK)
    ):
        postings[reference][kind] = (amount, collection, merchant_id)
    parts = RefundPart.objects.filter(refund__merchant__livemode=livemode)
    parts = parts.values_list(
        "reference", "status", "amount", "collection_reference", "refund__merchant_id"
    ).order_by("id")
    for reference, status, amount, collection, merchant_id in parts.iterator(
        chunk_size=CHUNK
    ):
        found = postings.pop(reference, {})
        if set(found) != EXPECTED[status]:
            yield (
                f"refund part {reference} ({status}) has postings {sorted(found)}, "
                f"expected {sorted(EXPECTED[status])}"
            )
        for kind, posted in found.items():
            if posted != (amount, collection, merchant_id):
                yield (
                    f"refund part {reference}: its {kind} posting is for {posted[0]} "
                    f"of {posted[1]}, the part for {amount} of {collection}"
                )
    # The refunds of a plan purged after the retention period keep their
    # postings (installments/retention/).
    for reference in sorted(set(postings) - purged(postings)):
        yield f"refund postings for {reference}, which is no refund part"


def refunds_add_up(livemode: bool) -> Iterator[str]:
    """Each refund's reduced, returned and failed amounts are its reductions,
    its parts not failed and its failed parts (`amount` and `amount_requested`
    follow by the table's constraint); each installment owes its original
    amount less its reductions; each plan's `amount_refunded` is its refunds'
    `amount`, which is its reductions plus the parts not failed."""
    reductions = RefundReduction.objects.filter(refund__merchant__livemode=livemode)
    reduced = totals_by(reductions, "refund_id")
    parts = RefundPart.objects.filter(refund__merchant__livemode=livemode)
    failed_parts = parts.filter(status=RefundPart.Status.FAILED)
    returned = totals_by(parts.exclude(status=RefundPart.Status.FAILED), "refund_id")
    failed = totals_by(failed_parts, "refund_id")
    refunds = Refund.objects.filter(merchant__livemode=livemode)
    for public_id, pk, *said in refunds.values_list(
        "public_id", "pk", "amount_reduced", "amount_returned", "amount_failed"
    ).iterator(chunk_size=CHUNK):
        rows = [reduced.get(pk, 0), returned.get(pk, 0), failed.get(pk, 0)]
        if rows != said:
            yield (
                f"refund {public_id} says {said[0]} reduced, {said[1]} returned and "
                f"{said[2]} failed; its rows say {rows[0]}, {rows[1]} and {rows[2]}"
            )
    by_installment = totals_by(reductions, "installment_id")
    for public_id, pk, taken in (
        Installment.objects.filter(plan__merchant__livemode=livemode)
        .exclude(original_amount=F("amount"))
        .annotate(taken=F("original_amount") - F("amount"))
        .values_list("public_id", "pk", "taken")
        .iterator(chunk_size=CHUNK)
    ):
        if by_installment.pop(pk, 0) != taken:
            yield f"installment {public_id} is {taken} below its original amount"
    for pk in sorted(pk for pk, total in by_installment.items() if total):
        yield f"installment #{pk} has reductions but owes its original amount"
    yield from _plans_refunded(livemode)


def _plans_refunded(livemode: bool) -> Iterator[str]:
    mine = {"refund__merchant__livemode": livemode}
    plan_reduced = totals_by(RefundReduction.objects.filter(**mine), "refund__plan_id")
    plan_returned = totals_by(
        RefundPart.objects.filter(**mine).exclude(status=RefundPart.Status.FAILED),
        "refund__plan_id",
    )
    by_refunds = totals_by(
        Refund.objects.filter(merchant__livemode=livemode), "plan_id"
    )
    for public_id, pk, refunded in (
        PaymentPlan.objects.filter(amount_refunded__gt=0, merchant__livemode=livemode)
        .values_list("public_id", "pk", "amount_refunded")
        .iterator(chunk_size=CHUNK)
    ):
        expected = plan_reduced.pop(pk, 0) + plan_returned.pop(pk, 0)
        if refunded != expected:
            yield (
                f"plan {public_id} has amount_refunded {refunded}, its refunds "
                f"{expected}"
            )
        amounts = by_refunds.pop(pk, 0)
        if refunded != amounts:
            yield (
                f"plan {public_id} has amount_refunded {refunded}, its refunds' "
                f"amount {amounts}"
            )
    for pk in sorted(set(plan_reduced) | set(plan_returned) | set(by_refunds)):
        if plan_reduced.get(pk, 0) + plan_returned.get(pk, 0) + by_refunds.get(pk, 0):
            yield f"plan #{pk} has refunds but amount_refunded 0"


CHECKS = (
    NamedLedgerCheck(
        "each refund part has the postings its status calls for",
        refund_parts_match_postings,
    ),
    NamedLedgerCheck(
        "refunds add up on plans, installments and refunds", refunds_add_up
    ),
)
