"""Partial collection (DESIGN section 15): what the last retry of a card does
after a soft decline, when the merchant turned it on.

The attempt whose failure would default the plan (the last retry), declined
softly (the decline table: the method may still pay), on an installment that
never had a partial debit, asks the processor for what the method has of what
is owed, down to `partial_collection_min_percent` of it (rounded up to the
kobo). It is its own charge under the house pattern:

- claimed: its deterministic reference `<installment id>_a<attempt>p`
  (claims.partial_reference_of) is written on the installment, still in flight
  under the attempt's lease, with the decline, and committed before the call;
- called outside any transaction;
- settled with the attempt in the batch's durable transaction (outcomes.py):
  `amount_paid`, its collection in the ledger, its events.

A pass that takes the attempt over after a crash finds the reference on the
installment and only verifies it: what the processor took is recorded, a
reference it never saw (the lease is far beyond any request's timeout) is a
partial debit that collected nothing. It is never sent twice, and the
attempt's full charges are never tried again once it was asked for.

Only an attempt that qualifies reads the merchant's setting (one query), so the
engine's common path costs nothing more.
"""

import logging
from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from merchants.models import Merchant
from payments.gateway.processors import side_processor
from payments.methods.services.saved_charges import (
    ChargeOutcome,
    charge_find,
    saved_method_partial_debit,
)

from ..plans.models import Installment
from .retries import MAX_ATTEMPTS

logger = logging.getLogger("installments.collection")


def at_least_of(owed: int, percent: int) -> int:
    """`percent` of `owed`, rounded up to the kobo: the least a partial debit
    may collect."""
    return -(-owed * percent // 100)


def qualifies(claim, *, failed: bool, retryable: bool) -> bool:
    """A failed attempt that may ask for a partial debit (without the
    merchant's setting): the last retry, declined softly, nothing ever asked
    of this installment before."""
    return (
        failed
        and retryable
        and claim.attempt >= MAX_ATTEMPTS
        and not claim.partial_reference
        and claim.amount_paid == 0
    )


def min_percent(merchant_pk: int) -> int | None:
    """The merchant's `partial_collection_min_percent` (None: off)."""
    return (
        Merchant.objects.filter(pk=merchant_pk)
        .values_list("partial_collection_min_percent", flat=True)
        .first()
    )


def _claim_partial(claim, reason: str) -> bool:
    """Commit the partial debit as in flight on the installment (its reference
    and the decline that led to it) while the attempt is still this one's."""
    with transaction.atomic():
        return bool(
            Installment.objects.filter(
                pk=claim.pk,
                status=Installment.Status.PROCESSING,
                attempts=claim.attempt,
                partial_reference="",
            ).update(
                partial_reference=claim.partial_debit_reference,
                last_failure_reason=reason,
                updated_at=timezone.now(),
            )
        )


def partial_debit(claim, method, *, reason: str) -> ChargeOutcome | None:
    """Ask `method` for a partial debit of what `claim` owes, when its
    merchant turned partial collection on; None when nothing was asked (off,
    or the attempt is no longer this pass's)."""
    percent = min_percent(claim.merchant_pk)
    if not percent or not _claim_partial(claim, reason):
        return None
    return saved_method_partial_debit(
        method=method,
        amount=claim.amount,
        at_least=at_least_of(claim.amount, percent),
        reference=claim.partial_debit_reference,
        currency=claim.currency,
    )


def partial_verify(claim) -> ChargeOutcome:
    """What became of the partial debit a crashed pass asked for: only ever
    verified, never sent again (one the processor never saw collected
    nothing)."""
    reference = claim.partial_debit_reference
    found = charge_find(processor=side_processor(claim.livemode), reference=reference)
    if found is None:
        return ChargeOutcome(status="failed", reference=reference)
    return found


def collected(claim, outcome: ChargeOutcome) -> int | None:
    """What a succeeded partial debit collected, when it is a sane share of
    what was owed; None (logged, left in flight) when the processor says it
    took nothing or more than that."""
    if 0 < outcome.amount <= claim.amount:
        return outcome.amount
    logger.error(
        "Partial debit %s of installment %s took %s kobo of %s owed: not recorded",
        outcome.reference,
        claim.public_id,
        outcome.amount,
        claim.amount,
    )
    return None


def first_soft(tried: Sequence[tuple[object, bool]]):
    """The method a partial debit asks: the first tried whose decline was soft
    (`tried`: (method or None, soft) in order)."""
    return next((method for method, soft in tried if soft and method), None)
