"""The ledger's invariants about wallets and payouts: each wallet matches its
transactions, each payout has the postings its status calls for. Run by
`check_ledger` after the ledger's own (payments/ledger/checks.py)."""

from collections import defaultdict
from collections.abc import Iterator

from django.db.models import QuerySet, Sum

from ..ledger.checks import CHUNK, Kind
from ..ledger.hooks import NamedLedgerCheck
from ..ledger.models import (
    PAYOUTS_IN_TRANSIT,
    WALLET_PREFIX,
    LedgerLine,
    LedgerTransaction,
)
from ..ledger.selectors import account_balance
from .models import Payout


def _totals(rows: QuerySet, by: str, field: str = "amount") -> dict:
    """The sum of `field` over `rows`, per value of `by`."""
    return dict(
        rows.order_by().values(by).annotate(total=Sum(field)).values_list(by, "total")
    )


def wallets_match() -> Iterator[str]:
    """Each merchant's available balance (wallet lines) equals its collections
    net of fees less payouts plus returned payouts, and is never negative; its
    pending payout (its share of payouts_in_transit) equals its open payouts."""
    lines = _totals(
        LedgerLine.objects.filter(account__startswith=WALLET_PREFIX), "account"
    )
    headers = _totals(
        LedgerTransaction.objects.filter(
            kind__in=(Kind.COLLECTION, Kind.PAYOUT, Kind.PAYOUT_RETURNED)
        ),
        "merchant__public_id",
        "net",
    )
    in_transit = _totals(
        LedgerLine.objects.filter(account=PAYOUTS_IN_TRANSIT),
        "transaction__merchant__public_id",
    )
    open_payouts = _totals(
        Payout.objects.filter(status__in=Payout.OPEN), "merchant__public_id"
    )
    merchant_ids = {account[len(WALLET_PREFIX) :] for account in lines}
    merchant_ids |= set(headers) | set(in_transit) | set(open_payouts)
    merchant_ids.discard(None)
    for merchant_id in sorted(merchant_ids):
        available = -(lines.get(f"{WALLET_PREFIX}{merchant_id}") or 0)
        if available != headers.get(merchant_id, 0):
            yield (
                f"wallet of {merchant_id}: its lines hold {available}, its "
                f"transactions say {headers.get(merchant_id, 0)}"
            )
        if available < 0:
            yield f"wallet of {merchant_id} is negative ({available})"
        pending = -(in_transit.get(merchant_id) or 0)
        if pending != (open_payouts.get(merchant_id) or 0):
            yield (
                f"wallet of {merchant_id}: {pending} in transit, but its open "
                f"payouts hold {open_payouts.get(merchant_id) or 0}"
            )


_PAYOUT_KINDS = (Kind.PAYOUT, Kind.PAYOUT_SETTLED, Kind.PAYOUT_RETURNED)
_EXPECTED_BY_STATUS = {
    Payout.Status.PENDING: {Kind.PAYOUT},
    Payout.Status.PROCESSING: {Kind.PAYOUT},
    Payout.Status.PAID: {Kind.PAYOUT, Kind.PAYOUT_SETTLED},
    Payout.Status.FAILED: {Kind.PAYOUT, Kind.PAYOUT_RETURNED},
    Payout.Status.REVERSED: {Kind.PAYOUT, Kind.PAYOUT_SETTLED, Kind.PAYOUT_RETURNED},
}


def payouts_match() -> Iterator[str]:
    """Each payout has exactly the postings its status calls for, for its own
    amount and merchant; every payout posting belongs to a payout; and
    payouts_in_transit holds exactly the open payouts."""
    postings = defaultdict(dict)
    for reference, kind, amount, merchant_id in (
        LedgerTransaction.objects.filter(kind__in=_PAYOUT_KINDS)
        .values_list("reference", "kind", "amount", "merchant_id")
        .iterator(chunk_size=CHUNK)
    ):
        postings[reference][kind] = (amount, merchant_id)
    for payout in (
        Payout.objects.only("public_id", "status", "amount", "merchant_id")
        .order_by("id")
        .iterator(chunk_size=CHUNK)
    ):
        found = postings.pop(payout.public_id, {})
        expected = _EXPECTED_BY_STATUS[payout.status]
        if set(found) != expected:
            yield (
                f"payout {payout.public_id} ({payout.status}) has postings "
                f"{sorted(found)}, expected {sorted(expected)}"
            )
        for kind, (amount, merchant_id) in found.items():
            if amount != payout.amount or merchant_id != payout.merchant_id:
                yield (
                    f"payout {payout.public_id}: its {kind} posting is for "
                    f"{amount} (merchant #{merchant_id}), the payout for "
                    f"{payout.amount} (merchant #{payout.merchant_id})"
                )
    for reference in sorted(postings):
        yield f"payout postings for {reference}, which is no payout"
    in_transit = -account_balance(PAYOUTS_IN_TRANSIT)
    open_total = (
        Payout.objects.filter(status__in=Payout.OPEN).aggregate(total=Sum("amount"))[
            "total"
        ]
        or 0
    )
    if in_transit != open_total:
        yield (f"payouts_in_transit holds {in_transit}, the open payouts {open_total}")


CHECKS = (
    NamedLedgerCheck("wallets match their transactions", wallets_match),
    NamedLedgerCheck("payouts match their postings", payouts_match),
)
