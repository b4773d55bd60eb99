"""Refunds through the processor under the service's own references (DESIGN
section 14): asking for one, finding it again after a lost answer, and telling
the registered refund handlers (payments/gateway/hooks.py) where one stands.

A refund is asked for with the caller's deterministic reference (a plan refund's
part, `rf_..._<n>`; a verification charge's, `vr_<charge reference>`) as
Paystack's `merchant_note`: every refund at the processor takes this route.
Before asking, the transaction's refunds are listed (`GET /refund?transaction=`)
and one already carrying the reference is returned instead: a request whose
answer was lost is never made twice. The caller claims its part before asking
(so two workers do not ask at once) and settles it from the answer; a part left
pending is settled later by the handlers, which the gateway calls whenever it
learns from the processor where a refund stands (endpoint 24's `refund.*`
events, re-verified with `GET /refund/:id`; the sandbox's settlement pass;
`processor_refund_check`).
"""

import logging

from django.db import transaction

from ..errors import ProcessorRefused
from ..hooks import (
    RefundOutcome,
    RefundStatus,
    refund_handlers,
    refund_status_normalize,
)
from ..processors import Processor, RefundResult, get_processor

logger = logging.getLogger("payments")


def refund_outcome(
    result: RefundResult, *, transaction_reference: str, reference: str | None = None
) -> RefundOutcome:
    """`result` as an outcome; `reference` defaults to the refund's note."""
    return RefundOutcome(
        reference=result.merchant_note if reference is None else reference,
        transaction_reference=result.transaction_reference or transaction_reference,
        refund_id=result.refund_id,
        amount=result.amount,
        status=refund_status_normalize(result.status),
        processor_status=result.status,
    )


def _find(
    *, reference: str, transaction_reference: str, processor: Processor | None = None
) -> RefundOutcome | None:
    """The refund of the transaction asked under `reference`, if any (one that
    did not fail first, should there be several)."""
    mine = [
        result
        for result in (processor or get_processor()).list_refunds(
            transaction_reference=transaction_reference
        )
        if result.merchant_note == reference
    ]
    if not mine:
        return None
    alive = [
        r for r in mine if refund_status_normalize(r.status) != RefundStatus.FAILED
    ]
    return refund_outcome(
        (alive or mine)[0], transaction_reference=transaction_reference
    )


def processor_refund_request(
    *,
    reference: str,
    transaction_reference: str,
    amount: int,
    currency: str = "NGN",
    note: str = "",
    processor: Processor | None = None,
) -> RefundOutcome:
    """Never call inside a transaction. Finds a refund already made under
    `reference` (a lost answer) before asking for a new one, so calling twice
    never refunds twice. Raises ProcessorTimeout/ProcessorError when the outcome
    is unknown (call again later with the same reference); ProcessorRefused when
    the processor said no (the caller fails the part).

    `note` is shown to the customer (Paystack's `customer_note`); `processor` is
    the one the transaction was made on (the service's own when None)."""
    if not reference or reference != reference.strip() or len(reference) > 255:
        raise ValueError(
            "A refund needs a reference of 1 to 255 characters, no spaces around."
        )
    if amount <= 0:
        raise ValueError("A refund's amount is a positive number of kobo.")
    processor = processor or get_processor()
    found = _find(
        reference=reference,
        transaction_reference=transaction_reference,
        processor=processor,
    )
    if found is not None:
        if found.amount != amount:
            logger.error(
                "Refund %s was asked for %s kobo, now for %s",
                reference,
                found.amount,
                amount,
            )
        return found
    try:
        result = processor.refund(
            transaction_reference=transaction_reference,
            amount=amount,
            currency=currency,
            merchant_note=reference,
            customer_note=note[:255],
        )
    except ProcessorRefused:
        # "Fully reversed" may mean that an earlier request of ours, whose
        # answer was lost, took it after all (a list can lag behind a refund).
        found = _find(
            reference=reference,
            transaction_reference=transaction_reference,
            processor=processor,
        )
        if found is not None:
            return found
        raise
    return refund_outcome(
        result, transaction_reference=transaction_reference, reference=reference
    )


def processor_refund_check(
    *,
    reference: str,
    transaction_reference: str,
    refund_id: str = "",
    processor: Processor | None = None,
) -> RefundOutcome | None:
    """Where a refund stands now (the poll); None when the processor knows none
    under `reference`.

    Never call inside a transaction: what the processor says is handed to the
    refund handlers in a transaction of its own, then returned. Raises
    ProcessorTimeout/ProcessorError when the processor does not answer.
    `processor` is the one the refund was asked of (the live side's when
    None)."""
    processor = processor or get_processor()
    outcome = None
    if refund_id:
        result = processor.fetch_refund(refund_id=refund_id)
        if (
            result is not None
            and result.merchant_note in ("", reference)
            and result.transaction_reference in ("", transaction_reference)
        ):
            outcome = refund_outcome(
                result, transaction_reference=transaction_reference, reference=reference
            )
    if outcome is None:
        outcome = _find(
            reference=reference,
            transaction_reference=transaction_reference,
            processor=processor,
        )
    if outcome is None:
        return None
    with transaction.atomic(durable=True):
        refund_outcome_dispatch(outcome)
    return outcome


def refunds_verified(
    *, transaction_reference: str, processor: Processor, refund_id: str = ""
) -> list[RefundOutcome]:
    """The refund `refund_id` of the transaction, or (when the caller does not
    know it: Paystack's events do not always name it) every refund of the
    transaction, each as `GET /refund/:id` of `processor` (the one the event
    came from) says it stands now."""
    if refund_id:
        ids = [refund_id]
    else:
        listed = processor.list_refunds(transaction_reference=transaction_reference)
        ids = list(dict.fromkeys(r.refund_id for r in listed if r.refund_id))
    outcomes = []
    for each in ids:
        result = processor.fetch_refund(refund_id=each)
        if result is None or result.transaction_reference not in (
            "",
            transaction_reference,
        ):
            continue
        outcomes.append(
            refund_outcome(result, transaction_reference=transaction_reference)
        )
    return outcomes


def refund_outcome_dispatch(outcome: RefundOutcome) -> list[str]:
    """Hand a refund's verified state to every refund handler, inside the
    caller's transaction; the names of those whose refund it is."""
    with transaction.atomic(savepoint=False):
        return [
            getattr(handler, "__qualname__", repr(handler))
            for handler in refund_handlers()
            if handler(outcome)
        ]
