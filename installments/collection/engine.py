"""The collection pass: claim a batch, charge it, record it, until nothing is due.

Safe to run in any number of processes at once (and every 5 minutes from the
django-q2 schedule while `collect_installments` runs by hand): correctness comes
from the committed claims, the per-attempt references and the state checks when
recording, never from the queue.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from functools import partial

from django.utils import timezone

from ..plans.models import Installment, start_of_day
from .batch import Tally
from .charging import BROKEN, UNDECIDED, ChargePool
from .claims import (
    claim_due,
    claim_now,
    claim_stale,
    claim_waiting,
    due,
    stale,
    waiting,
)
from .early_recovery import early_payments_recover
from .outcomes import record

BATCH_SIZE = 500


@dataclass
class PassSummary:
    claimed: int = 0  # attempts taken (new ones and ones left in flight before)
    resumed: int = 0  # of which attempts a previous pass left in flight
    undecided: int = 0  # the processor did not say: verified after the lease
    tally: Tally = field(default_factory=Tally)
    early_settled: int = 0  # early payments left in flight, settled by this pass
    seconds: float = 0.0
    more: bool = False  # stopped on its time budget; more may be due

    def plus(self, other: "PassSummary") -> "PassSummary":
        """The two passes' figures together (the sides of one run)."""
        tally = Tally()
        tally.add(self.tally)
        tally.add(other.tally)
        return PassSummary(
            claimed=self.claimed + other.claimed,
            resumed=self.resumed + other.resumed,
            undecided=self.undecided + other.undecided,
            tally=tally,
            early_settled=self.early_settled + other.early_settled,
            seconds=self.seconds + other.seconds,
            more=self.more or other.more,
        )

    @property
    def in_flight(self) -> int:
        """Left `processing`, to be settled by a later pass."""
        return self.undecided + self.tally.broken

    def line(self) -> str:
        rate = self.claimed / self.seconds if self.seconds else 0.0
        tally = self.tally
        extra = (
            f"{tally.waiting} waiting for a new payment method; "
            if tally.waiting
            else ""
        )
        if tally.partial:
            extra += f"{tally.partial} partially collected; "
        if self.early_settled:
            extra += f"{self.early_settled} early payment(s) settled; "
        return (
            f"{self.claimed} attempt(s) ({self.resumed} resumed): {tally.paid} paid, "
            f"{tally.failed} failed ({tally.defaulted} defaulted), "
            f"{self.in_flight} left in flight, {tally.skipped} settled elsewhere; "
            f"{tally.completed} plan(s) completed, {tally.released} released; "
            f"{extra}{self.seconds:.1f} s ({rate:.0f}/s)"
        )


def cutoff_of(on_date: date | None, now: datetime) -> tuple[datetime, date]:
    """(the latest `next_attempt_at` collected, the pass's Lagos date): now and
    today, or the very end of `on_date`."""
    if on_date is None:
        return now, timezone.localdate(now)
    return start_of_day(on_date + timedelta(days=1)) - timedelta(
        microseconds=1
    ), on_date


def due_count(*, on_date: date | None = None) -> int:
    """How many attempts a pass would take now (for a progress display)."""
    now = timezone.now()
    cutoff, _ = cutoff_of(on_date, now)
    return due(cutoff).count() + waiting(cutoff).count() + stale(now).count()


# The sides a pass runs in turn when not given one (DESIGN section 21).
SIDES = (True, False)


def collect_due(
    *,
    on_date: date | None = None,
    batch_size: int = BATCH_SIZE,
    budget_seconds: float | None = None,
    progress: Callable[[PassSummary], None] | None = None,
    plan_pk: int | None = None,
    livemode: bool | None = None,
) -> PassSummary:
    """Collect everything due (by now, or by the end of the Lagos date
    `on_date`) and settle every attempt whose lease ended, batch after batch,
    until none is left or the time budget is spent. Early payments whose lease
    ended are settled first, by verifying their own references.

    One side's installments (`livemode`): the schedule runs a pass per side,
    each reading only its side's range of the engine's indexes, so a backlog
    on one side never delays the other (DESIGN section 21). Without a side
    (the command, the demo), the live side's pass, then the test side's in
    what is left of the budget.

    With `plan_pk` (the sandbox clock), the same pass over that one plan's
    installments only, charged in this thread (a plan has a few claims at
    most); early payments left in flight are then the schedule's pass's."""
    if plan_pk is not None or livemode is not None:
        return _collect_side(
            on_date, batch_size, budget_seconds, progress, plan_pk, livemode
        )
    started = time.monotonic()
    total = PassSummary()
    for side in SIDES:
        left = None
        if budget_seconds is not None:
            left = budget_seconds - (time.monotonic() - started)
        shown = None
        if progress is not None:
            # Each batch's line counts the sides done before it too.
            shown = partial(_shown_after, progress, total)
        total = total.plus(_collect_side(on_date, batch_size, left, shown, None, side))
    return total


def _shown_after(
    progress: Callable[[PassSummary], None], done: PassSummary, part: PassSummary
) -> None:
    progress(done.plus(part))


def _collect_side(
    on_date: date | None,
    batch_size: int,
    budget_seconds: float | None,
    progress: Callable[[PassSummary], None] | None,
    plan_pk: int | None,
    livemode: bool | None,
) -> PassSummary:
    """One side's pass (or one plan's). Pipelined: while the pool charges one
    batch, this thread records the one before it and claims the next."""
    cutoff, pass_date = cutoff_of(on_date, timezone.now())
    started = time.monotonic()
    summary = PassSummary()
    if plan_pk is None and livemode is not False:
        # Early payments are settled by their own references, of either side:
        # the live pass (or the only one) does it, once.
        summary.early_settled = early_payments_recover(
            now=timezone.now(), limit=batch_size
        )
    if budget_seconds is not None and budget_seconds <= 0:
        summary.more = True
        return summary
    previous = None
    with ChargePool(threads=None if plan_pk is None else 1) as pool:
        claimer = _Claimer(cutoff, batch_size, plan_pk, livemode)
        while True:
            claims = []
            if budget_seconds is None or time.monotonic() - started < budget_seconds:
                claims = claimer.next()
            else:
                summary.more = True
            current = pool.submit(claims) if claims else None
            if previous is not None:
                _count(summary, previous.claims, previous.wait(), pass_date)
                summary.seconds = time.monotonic() - started
                if progress is not None:
                    progress(summary)
            if current is None:
                break
            previous = current
    summary.seconds = time.monotonic() - started
    return summary


class _Claimer:
    """A pass's next batch: attempts whose lease ended, installments waiting
    for a method that came (until a claim finds fewer than it asked for: those
    are few, and one that becomes claimable during the pass waits for the next
    one), then what is due."""

    def __init__(
        self,
        cutoff: datetime,
        batch_size: int,
        plan_pk: int | None,
        livemode: bool | None,
    ):
        self.cutoff = cutoff
        self.batch_size = batch_size
        self.scope = {"plan_pk": plan_pk, "livemode": livemode}
        self.waiting_left = True

    def next(self) -> list:
        scope = self.scope
        claims = claim_stale(now=timezone.now(), limit=self.batch_size, **scope)
        limit = self.batch_size - len(claims)
        if self.waiting_left and limit > 0:
            waiting = claim_waiting(
                cutoff=self.cutoff, now=timezone.now(), limit=limit, **scope
            )
            self.waiting_left = len(waiting) == limit
            claims += waiting
        return claims + claim_due(
            cutoff=self.cutoff,
            now=timezone.now(),
            limit=self.batch_size - len(claims),
            **scope,
        )


def _count(summary: PassSummary, claims, results, pass_date: date) -> None:
    summary.tally.add(record(results, pass_date=pass_date))
    summary.claimed += len(claims)
    summary.resumed += sum(1 for claim in claims if claim.resumed)
    summary.undecided += sum(1 for r in results if r.status == UNDECIDED)
    summary.tally.broken += sum(1 for r in results if r.status == BROKEN)


def installment_collect_now(*, installment: Installment) -> PassSummary:
    """Collect one installment now, due or not (the sandbox's time travel), by
    the engine's own claim: nothing is claimed (`claimed == 0`) when another
    caller's attempt holds it or has just settled it."""
    started = time.monotonic()
    now = timezone.now()
    summary = PassSummary()
    claim = claim_now(installment=installment, now=now)
    if claim is not None:
        with ChargePool(threads=1) as pool:
            results = pool.submit([claim]).wait()
        _count(summary, [claim], results, timezone.localdate(now))
    summary.seconds = time.monotonic() - started
    return summary
