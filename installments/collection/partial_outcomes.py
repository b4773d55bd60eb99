"""Recording partial debits (DESIGN section 15) with their failed attempt, in
the batch's transaction (outcomes.py): rare rows, so one UPDATE each.

For each attempt that asked for a partial debit: the installment names it
(`processor_reference`); when it collected something, `amount_paid` grows by
that, the collection is posted to the ledger for that amount (the fee on that
amount, keyed by the partial debit's reference), `installment.partially_paid`
says what was collected and what is still owed, and the customer is told by
e-mail (and SMS; the receipt follows, as for every collection).
"""

from typing import TYPE_CHECKING

from django.db.models import F

from payments.ledger.services import Collection, collections_post

from ..notifications import texts
from ..plans import events
from ..plans.models import Installment
from .batch import Batch

if TYPE_CHECKING:
    from payments.customers.models import Customer

    from .charging import Result


def partials_record(
    batch: Batch, results: list["Result"], customers: dict[int, "Customer"]
) -> None:
    collections = []
    for result in results:
        claim = result.claim
        row = batch.rows[claim.pk]
        reference = claim.partial_debit_reference
        Installment.objects.filter(pk=claim.pk).update(
            processor_reference=reference,
            partial_reference=reference,
            amount_paid=F("amount_paid") + result.partial_amount,
            updated_at=batch.now,
        )
        row.processor_reference = reference
        row.partial_reference = reference
        if not result.partial_amount:
            continue
        row.amount_paid += result.partial_amount
        merchant = batch.merchants[claim.merchant_pk]
        collections.append(
            Collection(
                merchant_pk=claim.merchant_pk,
                merchant_public_id=merchant.public_id,
                livemode=merchant.livemode,
                customer_pk=claim.customer_pk,
                amount=result.partial_amount,
                reference=reference,
                processor_reference=reference,
                resource_type="installment",
                resource_id=claim.public_id,
                currency=claim.currency,
                description=(
                    f"Part of installment {claim.sequence} of "
                    f"{claim.installment_count}, order {claim.order_reference}"
                )[:255],
            )
        )
        batch.events[claim.merchant_pk].append(
            events.installment_partially_paid(
                claim,
                amount=result.partial_amount,
                next_attempt_at=row.next_attempt_at,
                channel=result.channel,
            )
        )
        batch.messages += texts.partially_collected(
            claim,
            customer=customers[claim.customer_pk],
            merchant=merchant,
            collected=result.partial_amount,
            when=row.next_attempt_at,
        )
    collections_post(collections)
    batch.tally.partial += len(collections)
