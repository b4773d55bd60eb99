"""Reads of the ledger: account balances, a merchant's wallet, and the
collections with what each has left to refund.

Every balance is a kept balance plus the lines since the last checkpoint
(balances.py), so a read costs the same whatever the account's history.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import F, Q, QuerySet, Sum

from .balances import Scope, balances_by_account, totals
from .models import (
    PAYOUTS_IN_TRANSIT,
    REFUNDS_IN_TRANSIT,
    WALLET_PREFIX,
    LedgerLine,
    LedgerTransaction,
    side_account,
    wallet_account,
)

Kind = LedgerTransaction.Kind


def account_balance(account: str) -> int:
    """Debit-positive sum of an account's lines (credit balances come out negative)."""
    return sum(total.amount for total in totals([Scope(account)]).values())


def wallet_available_balance(merchant) -> int:
    """What the service owes the merchant now: the wallet's credit balance."""
    return -account_balance(wallet_account(merchant.public_id))


def wallets_available() -> dict[str, int]:
    """{merchant public id: available balance} of every wallet with lines."""
    return {
        account[len(WALLET_PREFIX) :]: -balance
        for account, balance in balances_by_account(WALLET_PREFIX).items()
    }


def merchant_in_transit(merchant, account: str = REFUNDS_IN_TRANSIT) -> int:
    """The merchant's share of a shared in-transit account (its own
    transactions' lines, on its side's account), as a positive amount."""
    account = side_account(account, merchant.livemode)
    return -sum(
        total.amount for total in totals([Scope(account, merchant.pk)]).values()
    )


@dataclass(frozen=True)
class WalletBalances:
    """A merchant's wallet, derived from the ledger (kobo)."""

    available_balance: int  # owed to the merchant now
    pending_payout: int  # in payouts that are on their way to the bank
    total_paid_out: int  # paid to the bank, less anything reversed after
    # Wallet transactions in all (one wallet line each), read in the same
    # statement for the list's `total`; not one of the balances compared.
    transactions: int = field(default=0, compare=False)


def wallet_balances(merchant) -> WalletBalances:
    """One read of the wallet's kept balance by kind and the merchant's share
    of `payouts_in_transit`. What was paid out follows from them: every payout
    left the wallet (`payout` lines), the ones that failed or were reversed came
    back (`payout_returned`), and the rest is either still in transit or paid."""
    wallet = wallet_account(merchant.public_id)
    in_transit = side_account(PAYOUTS_IN_TRANSIT, merchant.livemode)
    found = totals([Scope(wallet), Scope(in_transit, merchant.pk)])

    def of(account, *kinds):
        return sum(
            total.amount
            for (name, kind), total in found.items()
            if name == account and (not kinds or kind in kinds)
        )

    pending = -of(in_transit)
    left = of(wallet, Kind.PAYOUT) + of(wallet, Kind.PAYOUT_RETURNED)
    return WalletBalances(
        available_balance=-of(wallet),
        pending_payout=pending,
        total_paid_out=left - pending,
        transactions=sum(t.lines for (name, _), t in found.items() if name == wallet),
    )


class WalletTransactions:
    """The ledger transactions that change the merchant's available balance,
    newest (last posted) first, each with `wallet_change` (its effect on it): a
    range of the wallet's lines on their (account, -id) index. `count()` is the
    kept line count plus the lines since (no count of the whole history), so
    the API's `paginate` and the dashboard's pager take it as they take a
    queryset."""

    def __init__(self, merchant, count: int | None = None):
        self.merchant = merchant
        self.account = wallet_account(merchant.public_id)
        self._count = count

    def count(self) -> int:
        if self._count is None:
            found = totals([Scope(self.account)])
            self._count = sum(total.lines for total in found.values())
        return self._count

    def __len__(self) -> int:
        return self.count()

    def _lines(self):
        # Ordered by the index's expression (models.py): only that index gives
        # this order, never the primary key.
        return (
            LedgerLine.objects.filter(account=self.account)
            .annotate(newest=F("id") * -1)
            .select_related("transaction")
            .order_by("newest")
        )

    def _transaction(self, line):
        txn = line.transaction
        txn.wallet_change = -line.amount
        # A line of this wallet is on this wallet's side (its transaction's
        # merchant is the same row, or none for a platform movement).
        txn.livemode = self.merchant.livemode
        return txn

    def __iter__(self):
        """Every transaction, streamed in chunks (a CSV export): constant
        memory whatever the history."""
        for line in self._lines().iterator(chunk_size=2000):
            yield self._transaction(line)

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return self[index : index + 1][0]
        return [self._transaction(line) for line in self._lines()[index]]


def wallet_transactions(merchant, count: int | None = None) -> WalletTransactions:
    """The wallet's transactions; `count` when the caller read it already (the
    `transactions` of `wallet_balances`)."""
    return WalletTransactions(merchant, count)


# --- collections and what each has left to refund (DESIGN section 14) --------

# What each movement does to what a collection has left to refund: a plan
# refund's part (`refund`) takes its amount off it, a part that failed
# (`refund_returned`) gives it back. Settling a part changes nothing. A
# dispute's hold (`dispute_held`) takes its amount off too, a dispute won
# (`dispute_released`) gives it back, and a dispute lost keeps it taken
# (DESIGN section 19: the collection counts as refunded).
LEFT_CHANGE = {
    Kind.REFUND: -1,
    Kind.REFUND_RETURNED: 1,
    Kind.DISPUTE_HELD: -1,
    Kind.DISPUTE_RELEASED: 1,
}
# What disputes still hold of a collection: held, less released or lost.
HELD_CHANGE = {Kind.DISPUTE_HELD: 1, Kind.DISPUTE_RELEASED: -1, Kind.DISPUTE_LOST: -1}


@dataclass(frozen=True)
class CollectionLeft:
    """One collection (a deposit, an installment or a part of one, an early
    payment) with what it has left to refund."""

    reference: str  # the processor reference of the charge that collected it
    collected: int
    left: int  # collected, less its refunds not returned


def collections_of(resources: Mapping[str, Iterable[str]]) -> QuerySet:
    """The collections made for any of `resources` ({resource type: ids, a list
    or a queryset of them}), e.g. a plan's: its own (`payment_plan`: the
    deposit, a payoff) and its installments' (`installment`)."""
    match = Q(pk__in=[])
    for resource_type, ids in resources.items():
        if isinstance(ids, QuerySet):
            match |= Q(resource_type=resource_type, resource_id__in=ids)
        else:
            match |= Q(resource_type=resource_type, resource_id__in=list(ids))
    return LedgerTransaction.objects.filter(match, kind=Kind.COLLECTION)


def collections_since(
    since: datetime, *, after: int, resources: Mapping | None = None
) -> QuerySet:
    """Collections of a customer recorded since `since`, with ids above
    `after` (of `resources` only, when given: `collections_of`)."""
    rows = (
        collections_of(resources)
        if resources is not None
        else LedgerTransaction.objects.filter(kind=Kind.COLLECTION)
    )
    return rows.filter(created_at__gte=since, customer__isnull=False, id__gt=after)


def collections_by_reference(references: Iterable[str]) -> dict[str, LedgerTransaction]:
    """The collection of each processor reference found: what it was for
    (`description`), its amount and when it was collected."""
    return {
        txn.processor_reference: txn
        for txn in LedgerTransaction.objects.filter(
            kind=Kind.COLLECTION, processor_reference__in=list(references)
        )
    }


def _taken(references: list[str]) -> dict[str, int]:
    """What the refunds not returned have taken from each collection."""
    taken: dict[str, int] = {}
    for reference, kind, total in (
        LedgerTransaction.objects.filter(
            kind__in=tuple(LEFT_CHANGE), processor_reference__in=references
        )
        .order_by()
        .values("processor_reference", "kind")
        .annotate(total=Sum("amount"))
        .values_list("processor_reference", "kind", "total")
    ):
        taken[reference] = taken.get(reference, 0) - LEFT_CHANGE[kind] * total
    return taken


def collections_left(resources: Mapping[str, Iterable[str]]) -> list[CollectionLeft]:
    """The collections of `resources` (`collections_of`), newest first, each
    with what it has left to refund: the one rule of what a collection has
    left (collected, less the refunds asked for against it, plus those that
    failed), read in two queries."""
    collections = list(
        collections_of(resources)
        .order_by("-created_at", "-id")
        .values_list("processor_reference", "amount")
    )
    taken = _taken([reference for reference, _ in collections])
    return [
        CollectionLeft(reference, amount, amount - taken.get(reference, 0))
        for reference, amount in collections
    ]


def collection_left(reference: str) -> int:
    """What the collection of one processor reference has left to refund (the
    rule of `collections_left`). Raises ValueError when no collection has it."""
    collected = (
        LedgerTransaction.objects.filter(
            kind=Kind.COLLECTION, processor_reference=reference
        )
        .values_list("amount", flat=True)
        .first()
    )
    if collected is None:
        raise ValueError(f"no collection has processor reference {reference!r}")
    return collected - _taken([reference]).get(reference, 0)


def held_in_disputes(reference: str) -> int:
    """What open disputes hold of the collection of one processor reference:
    it is taken off what the collection has left to refund, but the fee kept
    on the collection is still the fee of what it has left counting it."""
    held = 0
    for kind, total in (
        LedgerTransaction.objects.filter(
            kind__in=tuple(HELD_CHANGE), processor_reference=reference
        )
        .order_by()
        .values("kind")
        .annotate(total=Sum("amount"))
        .values_list("kind", "total")
    ):
        held += HELD_CHANGE[kind] * total
    return held


def transactions_of(*, resource_type: str, resource_id: str) -> QuerySet:
    """The transactions posted for one resource (a refund's parts), in the
    order they were posted."""
    return LedgerTransaction.objects.filter(
        resource_type=resource_type, resource_id=resource_id
    ).order_by("created_at", "id")


def customers_in_the_books() -> QuerySet:
    """The ids of the customers some journal transaction names (the records
    retention keeps such a customer's row: the books are kept)."""
    return LedgerTransaction.objects.filter(customer__isnull=False).values(
        "customer_id"
    )
