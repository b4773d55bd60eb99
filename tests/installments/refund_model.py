"""A model of one plan's money after the sale, written from DESIGN sections 14,
15 and 19 alone (no service code): what refunds, collections (partial ones
included), processor answers, disputes (won or lost) and a cancellation do to
its installments, its collections and its fee.

tests/installments/test_refund_properties.py holds the services and the pure
allocation against it. Amounts in kobo."""

from dataclasses import dataclass, field
from datetime import date

SCHEDULED, PROCESSING, PAID, CANCELLED = "scheduled", "processing", "paid", "cancelled"
# An installment whose attempt failed (retried later), or that defaulted.
RETRYING, DEFAULTED = "failed", "defaulted"
REQUESTING, PENDING, PROCESSED, FAILED = "requesting", "pending", "processed", "failed"


def fee(amount: int) -> int:
    """2.5%, half up (DESIGN section 8), written out again on purpose."""
    return (amount * 25 + 500) // 1000


@dataclass
class InstallmentModel:
    sequence: int
    due_date: date
    amount: int
    original_amount: int
    status: str = SCHEDULED
    reference: str = ""  # the processor reference of its collection
    # What a partial collection took of `amount` while unpaid (DESIGN 15).
    amount_paid: int = 0

    @property
    def rest(self) -> int:
        """What is still owed of it."""
        return self.amount - self.amount_paid


@dataclass
class CollectionModel:
    reference: str
    amount: int
    left: int  # collected less the refund parts not failed, less disputes' holds
    # Charged on the plan's card (the refunds-fail card refuses its refunds);
    # False: paid by the customer by bank transfer, refunded to their bank.
    on_card: bool = True
    # What an open dispute holds of it (out of `left`, still in the fee's
    # base), and what disputes lost charged back (DESIGN 19).
    held: int = 0
    charged_back: int = 0


@dataclass
class DisputeModel:
    """A dispute of one collection: what it holds, and how it ended."""

    collection_reference: str
    amount_held: int
    status: str = "open"  # -> won | lost


@dataclass
class PartModel:
    collection_reference: str
    amount: int
    status: str


@dataclass
class RefundModel:
    """A refund's figures as docs/refunds.md defines them, from its parts."""

    amount_requested: int
    reduced: list[tuple[int, int]]  # (installment sequence, kobo taken off)
    parts: list[PartModel]

    @property
    def amount_reduced(self) -> int:
        return sum(taken for _, taken in self.reduced)

    @property
    def amount_returned(self) -> int:
        """Its parts not failed: paid back or on their way."""
        return sum(part.amount for part in self.parts if part.status != FAILED)

    @property
    def amount_pending(self) -> int:
        return sum(
            part.amount for part in self.parts if part.status in (REQUESTING, PENDING)
        )

    @property
    def amount_failed(self) -> int:
        return sum(part.amount for part in self.parts if part.status == FAILED)

    @property
    def amount(self) -> int:
        """What it took off the order."""
        return self.amount_reduced + self.amount_returned

    def figures(self) -> dict[str, int]:
        """Its figures as the API names them."""
        return {
            "amount": self.amount,
            "amount_requested": self.amount_requested,
            "amount_reduced": self.amount_reduced,
            "amount_returned": self.amount_returned,
            "amount_pending": self.amount_pending,
            "amount_failed": self.amount_failed,
        }

    @property
    def status(self) -> str:
        statuses = {part.status for part in self.parts}
        if statuses & {REQUESTING, PENDING}:
            return PENDING
        return FAILED if FAILED in statuses else PROCESSED


class Busy(Exception):
    """The refund needs an installment being charged (409 plan_busy)."""


class Exceeds(Exception):
    """More than is refundable now (422 refund_exceeds_refundable)."""


class DuringDispute(Exception):
    """A dispute of the plan is open (409 refund_during_dispute)."""


@dataclass
class PlanModel:
    total: int
    installments: list[InstallmentModel]
    # Newest first.
    collections: list[CollectionModel] = field(default_factory=list)
    refunds: list[RefundModel] = field(default_factory=list)
    amount_refunded: int = 0
    status: str = "active"
    cancellations: int = 0  # payment_plan.cancelled sent
    disputes: list[DisputeModel] = field(default_factory=list)
    amount_charged_back: int = 0

    @property
    def open_disputes(self) -> list[DisputeModel]:
        return [d for d in self.disputes if d.status == "open"]

    @property
    def unpaid(self) -> list[InstallmentModel]:
        return [row for row in self.installments if row.status in (SCHEDULED, RETRYING)]

    @property
    def open(self) -> list[InstallmentModel]:
        return [
            row
            for row in self.installments
            if row.status in (SCHEDULED, RETRYING, PROCESSING)
        ]

    def refundable(self) -> int:
        """What a refund may take now: within the total less what was refunded,
        and what the unpaid installments and the collections still hold (an
        installment being charged holds nothing yet)."""
        holds = sum(row.rest for row in self.unpaid)
        holds += sum(item.left for item in self.collections)
        return min(self.total - self.amount_refunded, holds)

    def collected(self, reference: str, amount: int, *, on_card: bool = True) -> None:
        self.collections.insert(
            0, CollectionModel(reference, amount, amount, on_card=on_card)
        )

    def claim(self, row: InstallmentModel) -> None:
        row.status = PROCESSING

    def pay(self, row: InstallmentModel, reference: str, *, on_card=True) -> None:
        """The engine collected it (what it still owes now), or the customer
        paid it by bank transfer (`on_card` False)."""
        row.status, row.reference = PAID, reference
        self.collected(reference, row.rest, on_card=on_card)
        if self.status == "active" and not self.open:
            self.status = "completed"

    def partial(self, row: InstallmentModel, reference: str, amount: int) -> None:
        """A partial debit at its last retry took `amount` (less than it
        owed): collected under its own reference, the rest still owed."""
        assert 0 < amount < row.rest
        row.amount_paid += amount
        row.status = RETRYING
        self.collected(reference, amount)

    def fail(self, row: InstallmentModel) -> None:
        row.status = RETRYING

    def default(self, row: InstallmentModel) -> None:
        """Its last try failed: it and the plan default; what was collected
        stays collected, the rest stays owed."""
        row.status = DEFAULTED
        if self.status == "active":
            self.status = "defaulted"

    def refund(self, amount: int, *, parts_fail: bool) -> RefundModel:
        """Unpaid installments last due first (to 0: cancelled), then money
        against the collections newest first; `parts_fail`: the processor
        refuses at once every part of a collection charged on the card (the
        sandbox's refunds-fail card); a transfer's refund goes to the bank.
        Refused while a dispute of the plan is open."""
        if self.open_disputes:
            raise DuringDispute()
        if amount > self.total - self.amount_refunded:
            raise Exceeds()
        left, reduced = amount, []
        for row in sorted(self.open, key=lambda r: (r.due_date, r.sequence))[::-1]:
            if left == 0:
                break
            if row.status == PROCESSING:
                raise Busy()
            reduced.append((row, min(left, row.rest)))
            left -= reduced[-1][1]
        parts = []
        for item in self.collections:
            if left == 0:
                break
            if item.left:
                parts.append(PartModel(item.reference, min(left, item.left), PENDING))
                left -= parts[-1].amount
        if left:
            raise Exceeds()  # not a kobo changed yet
        for row, taken in reduced:
            row.amount -= taken
            if row.rest == 0:  # nothing more owed: what was collected stays
                row.status = CANCELLED
        for part in parts:
            self.collection_of(part).left -= part.amount
        self.amount_refunded += amount
        refund = RefundModel(amount, [(r.sequence, t) for r, t in reduced], parts)
        self.refunds.append(refund)
        if any(row.rest == 0 for row, _ in reduced) and self._nothing_left():
            self.status = "cancelled"
            self.cancellations += 1
        if parts_fail:
            for part in parts:
                if self.collection_of(part).on_card:
                    self.part_answered(part, FAILED)
        return refund

    def part_answered(self, part: PartModel, status: str) -> None:
        """The processor's word on a part; a settled part never moves again."""
        if part.status in (PROCESSED, FAILED):
            return
        part.status = status
        if status == FAILED:
            self.collection_of(part).left += part.amount
            self.amount_refunded -= part.amount

    def dispute_open(self, item: CollectionModel, amount: int) -> DisputeModel:
        """The customer's bank disputes `amount` of a collection: it holds
        what the collection has left of it at most."""
        dispute = DisputeModel(item.reference, max(0, min(amount, item.left)))
        item.left -= dispute.amount_held
        item.held += dispute.amount_held
        self.disputes.append(dispute)
        return dispute

    def dispute_decide(self, dispute: DisputeModel, *, won: bool) -> None:
        """Won: the held money returns to the collection. Lost: it is charged
        back, and an active or completed plan waits `disputed`."""
        assert dispute.status == "open"
        item = next(
            c for c in self.collections if c.reference == dispute.collection_reference
        )
        item.held -= dispute.amount_held
        if won:
            dispute.status = "won"
            item.left += dispute.amount_held
            return
        dispute.status = "lost"
        item.charged_back += dispute.amount_held
        self.amount_charged_back += dispute.amount_held
        if self.status in ("active", "completed"):
            self.status = "disputed"

    def cancel(self) -> bool:
        """The merchant's cancellation: False when refused (409)."""
        if self.status not in ("active", "defaulted", "disputed"):
            return False
        if any(row.status == PROCESSING for row in self.installments):
            return False
        for row in self.unpaid:
            row.status = CANCELLED
        self.status = "cancelled"
        self.cancellations += 1
        return True

    def _nothing_left(self) -> bool:
        return self.status in ("active", "defaulted") and not self.open

    def collection_of(self, part: PartModel) -> CollectionModel:
        return next(
            c for c in self.collections if c.reference == part.collection_reference
        )

    # --- what the books must say ----------------------------------------------

    def kept(self) -> int:
        """Collected less refunded, less what disputes hold or charged back:
        what the merchant's wallet and the fee account must have gained from
        the plan together."""
        return sum(item.left for item in self.collections)

    def fee_kept(self) -> dict[str, int]:
        """The fee each collection keeps: the fee of what it has left counting
        what open disputes hold (collected - refunded - charged back)."""
        return {item.reference: fee(item.left + item.held) for item in self.collections}

    def held(self) -> int:
        return sum(item.held for item in self.collections)

    def in_transit(self) -> int:
        return sum(
            part.amount
            for refund in self.refunds
            for part in refund.parts
            if part.status in (REQUESTING, PENDING)
        )

    def conserved(self) -> bool:
        """Every kobo of the order is refunded, still owed, cancelled by the
        merchant, or kept from a collection."""
        owed = sum(row.rest for row in self.installments if row.status != PAID)
        given_back = self.amount_refunded + self.amount_charged_back
        if any(item.left < 0 or item.held < 0 for item in self.collections):
            return False
        return given_back + owed + self.kept() + self.held() == self.total
