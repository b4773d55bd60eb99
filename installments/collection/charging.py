"""Charging a batch of claims at the processor, outside any transaction.

Each claim is one attempt: the customer's default payment method first, then
their other active methods (newest first), each try with its own deterministic
reference (`<inst>_a<n>`, then `<inst>_a<n>m2`, ...). The next method is tried
only after the processor declined the previous one, so when an answer is lost
(timeout, crash) the references tried so far are exactly those up to the last
one sent: a pass that takes the attempt over verifies them in order and charges
only a reference the processor has never seen. An installment is never charged
twice.

The processor calls of a batch overlap on a few threads (DESIGN section 13), so a
slow processor costs the batch its latency once per round of threads, not once
per installment.
"""

import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import connections, transaction

from payments.selectors import payment_methods_chargeable_by_customer
from payments.services.saved_charges import (
    ChargeOutcome,
    charge_find,
    saved_method_charge,
)

from ..services import failure_reason
from .claims import Claim

logger = logging.getLogger("installments.collection")

PAID = "paid"
FAILED = "failed"
# The processor has not said (timeout, pending): the attempt stays in flight and
# a later pass verifies it when its lease ends.
UNDECIDED = "undecided"
# Something broke between claim and record (a bug, a crash): left in flight too.
BROKEN = "broken"

NO_PAYMENT_METHOD = "no_payment_method"


@dataclass(frozen=True)
class Result:
    claim: Claim
    status: str
    reference: str = ""  # the charge that paid, or the last one tried
    processor_id: str = ""
    reason: str = ""  # the `payment.failed` reason when FAILED
    message: str = ""  # the processor's words, for people


def after_charge(claim: Claim, result: Result) -> None:
    """Runs between the processor's answer and the transaction that records it.

    Nothing happens here; it marks the spot a crash would hurt most, so tests
    replace it to prove the next pass repairs such a crash.
    """


def _paid(claim: Claim, outcome: ChargeOutcome) -> Result:
    return Result(
        claim,
        PAID,
        reference=outcome.reference,
        processor_id=outcome.processor_id,
        message=outcome.message,
    )


def _charge(claim: Claim, methods: Sequence) -> Result:
    number = 1
    first_decline: ChargeOutcome | None = None
    if claim.resumed:
        while True:
            found = charge_find(reference=claim.reference(number))
            if found is None:
                break  # never sent: charge it now
            if found.succeeded:
                return _paid(claim, found)
            if not found.failed:
                return Result(claim, UNDECIDED, reference=found.reference)
            first_decline = first_decline or found
            number += 1
    for method in methods[number - 1 :]:
        outcome = saved_method_charge(
            method=method,
            amount=claim.amount,
            reference=claim.reference(number),
            currency=claim.currency,
            metadata={
                "purpose": "installment",
                "installment_id": claim.public_id,
                "attempt": claim.attempt,
                "payment_plan_id": claim.plan_public_id,
                "order_reference": claim.order_reference,
            },
        )
        if outcome.succeeded:
            return _paid(claim, outcome)
        if not outcome.failed:
            # Never move on to another method while this one may be charged.
            return Result(claim, UNDECIDED, reference=outcome.reference)
        first_decline = first_decline or outcome
        number += 1
    if first_decline is None:
        return Result(
            claim,
            FAILED,
            reason=NO_PAYMENT_METHOD,
            message="The customer has no active payment method.",
        )
    # The reason the customer's own default gave, when several methods declined.
    return Result(
        claim,
        FAILED,
        reference=claim.reference(number - 1),
        processor_id=first_decline.processor_id,
        reason=failure_reason(first_decline.failure_reason),
        message=first_decline.message,
    )


def charge(claim: Claim, methods: Sequence) -> Result:
    """The attempt's outcome; never raises (one installment never stops a batch)."""
    try:
        result = _charge(claim, methods)
        after_charge(claim, result)
    except Exception:
        logger.exception(
            "Installment %s attempt %s: charging failed unexpectedly; it stays in "
            "flight and is verified when its lease ends",
            claim.public_id,
            claim.attempt,
        )
        return Result(claim, BROKEN)
    return result


def overlapped(func: Callable, items: Sequence, threads: int) -> list:
    """`[func(item) for item in items]`, on up to `threads` threads.

    Inline when the caller is inside a transaction (tests): other threads have
    their own database connections, which could not see its uncommitted rows.
    Each thread closes its connections when the batch is done.
    """
    if threads <= 1 or len(items) <= 1 or transaction.get_connection().in_atomic_block:
        return [func(item) for item in items]
    results: list = [None] * len(items)
    positions = itertools.count()
    lock = threading.Lock()

    def work() -> None:
        try:
            while True:
                with lock:
                    position = next(positions)
                if position >= len(items):
                    return
                results[position] = func(items[position])
        finally:
            connections.close_all()

    workers = [
        threading.Thread(target=work, name=f"collect-{number}", daemon=True)
        for number in range(min(threads, len(items)))
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return results


def charge_batch(claims: Sequence[Claim]) -> list[Result]:
    """Charge every claim (their methods loaded in one query), overlapping the
    processor calls."""
    methods = payment_methods_chargeable_by_customer(
        {claim.customer_pk for claim in claims}
    )
    return overlapped(
        lambda claim: charge(claim, methods.get(claim.customer_pk, [])),
        claims,
        settings.INSTALLMENT_COLLECTION_THREADS,
    )
