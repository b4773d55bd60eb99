"""Charging a batch of claims at the processor, outside any transaction.

Each claim is one attempt: the customer's default payment method first, then
their other active methods (newest first), each try with its own deterministic
reference (`<inst>_a<n>`, then `<inst>_a<n>m2`, ...). The next method is tried
only after the processor declined the previous one, so when an answer is lost
(timeout, crash) the references tried so far are exactly those up to the last
one sent: a pass that takes the attempt over verifies them in order and charges
only a reference the processor has never seen. An installment is never charged
twice.

A manual plan's claim (DESIGN section 17) with no method to charge, or only
hard declines, fails with the soft reason `not_paid`: nothing is charged, the
customer is told to pay it (outcomes.py), and the retry days follow.

A hard decline (the decline table, payments/gateway/declines.py) has taken its
method out of charging by the time the next one is tried, and the pass skips
that method for every later claim of the same customer too. The attempt's
reason is the first soft decline when there is one (the installment is retried
on the schedule), else the first hard one (nothing left: the customer must
act).

At the last retry (partial.py), a soft decline may be followed by a partial
debit (`<inst>_a<n>p`, claimed on the installment before it is sent) when the
merchant turned partial collection on; a resumed attempt that asked for one
only verifies it, and charges nothing else.

The processor calls overlap on a pool of threads (DESIGN section 13), so a slow
processor costs its latency once per round of threads, not once per installment,
and the threads keep charging the next batch while the previous one is recorded.
"""

import logging
import queue
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import connections, transaction

from payments.gateway.declines import (
    NO_PAYMENT_METHOD,
    NOT_PAID,
    Decline,
    decline_of,
)
from payments.gateway.processors import side_processor
from payments.methods.selectors import payment_methods_chargeable_by_customer
from payments.methods.services.saved_charges import (
    ChargeOutcome,
    charge_find,
    saved_method_charge,
)

from . import partial
from .claims import Claim

logger = logging.getLogger("installments.collection")

PAID = "paid"
FAILED = "failed"
# The processor has not said (timeout, pending): the attempt stays in flight and
# a later pass verifies it when its lease ends.
UNDECIDED = "undecided"
# Something broke between claim and record (a bug, a crash): left in flight too.
BROKEN = "broken"


@dataclass(frozen=True)
class Result:
    claim: Claim
    status: str
    # The method (1 = the first tried) whose charge paid, or the last one tried;
    # 0 when none was.
    method_number: int = 0
    reason: str = ""  # the `payment.failed` reason when FAILED
    # Partial collection (partial.py): the failed attempt asked for a partial
    # debit (its reference is the claim's `partial_debit_reference`), and what
    # that collected (0: nothing).
    partial_asked: bool = False
    partial_amount: int = 0
    # The PayChannel of the method that paid, or of the last one tried ("":
    # none was, or a resumed try this pass cannot name).
    channel: str = ""

    @property
    def decline(self) -> Decline:
        """The decline table's row of a FAILED result's reason."""
        return decline_of(self.reason)

    @property
    def reference(self) -> str:
        """The processor reference of that charge ("" when none was made)."""
        if self.partial_asked:
            return self.claim.partial_debit_reference
        if not self.method_number:
            return ""
        return self.claim.reference(self.method_number)


def _outcomes(
    claim: Claim, methods: Sequence, retired: set[int]
) -> Iterator[tuple[int, ChargeOutcome, object]]:
    """(method number, outcome, method) of each try, first to last, one at a
    time (the method is None for a try found that this pass cannot name): a
    resumed claim's tries already sent (found by their references), then new
    charges of the methods not tried yet, leaving out those a hard decline
    retired during this pass (`retired`, their pks; shared by the pass's
    threads, so one customer's expired card is charged once per pass, not once
    per installment). Nothing is charged before the caller asks for the next
    outcome."""
    number = 1
    if claim.resumed:
        # Stops at the first reference never sent: it is charged now.
        # Every try went to the processor of the plan's side (a method is only
        # charged there), so that one knows each reference.
        processor = side_processor(claim.livemode)
        while (
            found := charge_find(processor=processor, reference=claim.reference(number))
        ) is not None:
            yield number, found, _nth(methods, number)
            number += 1
    for method in methods[number - 1 :]:
        if method.pk in retired:
            continue
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
        if outcome.failed and decline_of(outcome.failure_reason).method_effect:
            retired.add(method.pk)
        yield number, outcome, method
        number += 1


def _nth(methods: Sequence, number: int):
    return methods[number - 1] if number <= len(methods) else None


def _charge(claim: Claim, methods: Sequence, retired: set[int]) -> Result:
    if claim.partial_in_flight:
        # Every full charge of this attempt was declined before it was asked.
        outcome = partial.partial_verify(claim)
        return _partial_result(claim, claim.last_failure_reason, outcome, 0)
    declines: list[Decline] = []
    tried: list[tuple[object, bool]] = []
    number = 0
    channel = ""
    for number, outcome, method in _outcomes(claim, methods, retired):
        channel = method.channel if method is not None else ""
        if outcome.succeeded:
            return Result(claim, PAID, method_number=number, channel=channel)
        if not outcome.failed:
            # Never move on to another method while this one may be charged.
            return Result(claim, UNDECIDED, method_number=number)
        declines.append(decline_of(outcome.failure_reason))
        tried.append((method, declines[-1].retryable))
    if not declines:
        # Nothing to charge: a manual plan's customer pays it (told so by the
        # outcome's notice, on the retry schedule); any other plan waits for a
        # method.
        return Result(
            claim, FAILED, reason=NOT_PAID if claim.manual else NO_PAYMENT_METHOD
        )
    # A method that may still pay decides: the installment is retried. The
    # customer's own default comes first among equals.
    soft = [decline for decline in declines if decline.retryable]
    reason = (soft or declines)[0].reason
    if claim.manual and not soft:
        reason = NOT_PAID  # no method left that may pay: the customer pays
    if partial.qualifies(claim, failed=True, retryable=bool(soft)):
        method = partial.first_soft(tried)
        asked = partial.partial_debit(claim, method, reason=reason) if method else None
        if asked is not None:
            return _partial_result(claim, reason, asked, number, method.channel)
    return Result(claim, FAILED, method_number=number, reason=reason, channel=channel)


def _partial_result(
    claim: Claim,
    reason: str,
    outcome: ChargeOutcome,
    method_number: int,
    channel: str = "",
) -> Result:
    """The attempt after its partial debit: failed for the full amount, with
    what the partial debit collected; undecided while the processor has not
    said (verified when the lease ends)."""
    if outcome.failed or outcome.succeeded:
        amount = partial.collected(claim, outcome) if outcome.succeeded else 0
        if amount is not None:
            # The money came in meanwhile: a partial debit that took all that
            # was owed paid the installment (under its own reference).
            return Result(
                claim,
                PAID if amount == claim.amount else FAILED,
                method_number=method_number,
                reason=reason,
                partial_asked=True,
                partial_amount=amount,
                channel=channel,
            )
    return Result(claim, UNDECIDED, method_number=method_number)


def charge(claim: Claim, methods: Sequence, retired: set[int] | None = None) -> Result:
    """The attempt's outcome; never raises (one installment never stops a batch)."""
    try:
        result = _charge(claim, methods, set() if retired is None else retired)
    except Exception:
        logger.exception(
            "Installment %s attempt %s: charging failed unexpectedly; it stays in "
            "flight and is verified when its lease ends",
            claim.public_id,
            claim.attempt,
        )
        return Result(claim, BROKEN)
    return result


class _Pending:
    """The results of one submitted batch, filled in by the pool's threads."""

    def __init__(self, claims: Sequence[Claim]):
        self.claims = list(claims)
        self.results: list[Result | None] = [None] * len(self.claims)
        self._left = len(self.claims)
        self._done = threading.Condition()

    def set(self, position: int, result: Result) -> None:
        with self._done:
            self.results[position] = result
            self._left -= 1
            if not self._left:
                self._done.notify_all()

    def wait(self) -> list[Result]:
        with self._done:
            self._done.wait_for(lambda: not self._left)
        return self.results


class ChargePool:
    """Threads that charge claims for a whole pass, so the processor calls of a
    batch overlap each other and the recording of the previous batch.

    `submit(claims)` loads their payment methods (one query) and queues them;
    `wait()` on what it returns gives the results in order. Inline (no threads)
    when `threads` is 1 or the caller is inside a transaction (tests): other
    threads have their own database connections, which could not see the
    caller's uncommitted rows. Each thread closes its connections at the end.
    """

    def __init__(self, threads: int | None = None):
        threads = (
            settings.INSTALLMENT_COLLECTION_THREADS if threads is None else threads
        )
        inline = threads <= 1 or transaction.get_connection().in_atomic_block
        self._size = 0 if inline else threads
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        # Methods a hard decline took out of charging during this pass.
        self._retired: set[int] = set()

    def _grow(self, work: int) -> None:
        """Start threads as work arrives, up to the pool's size."""
        while len(self._threads) < min(self._size, work):
            thread = threading.Thread(
                target=self._work, name=f"collect-{len(self._threads)}", daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def _work(self) -> None:
        try:
            while (job := self._jobs.get()) is not None:
                pending, position, claim, methods = job
                pending.set(position, charge(claim, methods, self._retired))
        finally:
            connections.close_all()

    def submit(self, claims: Sequence[Claim]) -> _Pending:
        pending = _Pending(claims)
        methods = payment_methods_chargeable_by_customer(
            {claim.customer_pk for claim in claims}
        )
        self._grow(len(pending.claims))
        for position, claim in enumerate(pending.claims):
            # Only the methods of the plan's side: a test card is never
            # charged for a live plan, nor a live one for a test plan.
            job = (
                pending,
                position,
                claim,
                methods.get((claim.customer_pk, claim.livemode), []),
            )
            if self._size:
                self._jobs.put(job)
            else:
                pending.set(position, charge(*job[2:], self._retired))
        return pending

    def close(self) -> None:
        for _ in self._threads:
            self._jobs.put(None)
        for thread in self._threads:
            thread.join()

    def __enter__(self) -> "ChargePool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
