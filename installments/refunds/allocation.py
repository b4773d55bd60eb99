"""Where a refund's amount goes (DESIGN section 14), as a pure function of what
the plan owes and what it collected, read under the plan's lock:

1. unpaid installments are reduced first, the last due first (one reduced to 0
   is cancelled); no money moves for this part;
2. the rest is paid back in money against the plan's collections, newest
   first, each at most what it has left after earlier refunds: one processor
   refund (a part) per collection used.

An installment being charged (`processing`) can be neither reduced nor
refunded: a refund that would need it is refused (409 `plan_busy`).
"""

from dataclasses import dataclass
from datetime import date

from ..plans.errors import PlanBusy
from .errors import RefundExceedsRefundable


@dataclass(frozen=True)
class Owed:
    """An installment not yet paid: reducible when `unpaid`, else in flight."""

    pk: int
    sequence: int
    due_date: date
    amount: int
    unpaid: bool  # scheduled or failed; False: processing


@dataclass(frozen=True)
class Collected:
    """One collection of the plan (deposit, installment, early payment), newest
    first, with what it has left after the refunds not failed so far."""

    reference: str  # the processor reference of its charge
    left: int


@dataclass(frozen=True)
class Reduction:
    pk: int
    amount: int
    cancels: bool  # reduced to 0


@dataclass(frozen=True)
class Part:
    collection_reference: str
    amount: int
    left_before: int  # what the collection had left before this part


@dataclass(frozen=True)
class Allocation:
    reductions: tuple[Reduction, ...]
    parts: tuple[Part, ...]

    @property
    def reduced(self) -> int:
        return sum(reduction.amount for reduction in self.reductions)

    @property
    def returned(self) -> int:
        return sum(part.amount for part in self.parts)


def refundable_now(owed: list[Owed], collected: list[Collected], limit: int) -> int:
    """What a refund could take now: the unpaid installments and what the
    collections have left, never more than `limit` (total less refunded)."""
    available = sum(item.amount for item in owed if item.unpaid)
    available += sum(item.left for item in collected)
    return max(0, min(limit, available))


def allocate(
    *, amount: int, owed: list[Owed], collected: list[Collected], limit: int
) -> Allocation:
    """Split `amount` per DESIGN 14. `owed` in any order, `collected` newest
    first, `limit` = the plan's total less what was refunded so far.

    Raises RefundExceedsRefundable (more than `limit`, or than the unpaid
    installments and collections can take) and PlanBusy (an installment being
    charged would have to be reduced or refunded)."""
    if amount <= 0:
        raise ValueError("a refund is a positive amount")
    if amount > limit:
        raise _exceeds(owed, collected, limit)
    left = amount
    reductions = []
    for item in sorted(owed, key=lambda o: (o.due_date, o.sequence), reverse=True):
        if left == 0:
            break
        if not item.unpaid:
            raise PlanBusy(
                f"Installment {item.sequence} is being charged right now and this "
                "refund would need it; retry in a moment."
            )
        taken = min(left, item.amount)
        reductions.append(Reduction(item.pk, taken, cancels=taken == item.amount))
        left -= taken
    parts = []
    for item in collected:
        if left == 0:
            break
        if item.left <= 0:
            continue
        taken = min(left, item.left)
        parts.append(Part(item.reference, taken, left_before=item.left))
        left -= taken
    if left:
        raise _exceeds(owed, collected, limit)
    return Allocation(reductions=tuple(reductions), parts=tuple(parts))


def _exceeds(
    owed: list[Owed], collected: list[Collected], limit: int
) -> RefundExceedsRefundable:
    return RefundExceedsRefundable(
        "The amount is more than what is left to refund on this plan: at most "
        f"{refundable_now(owed, collected, limit)} kobo now."
    )
