"""The ledger's invariants about wallets and payouts: each wallet matches its
transactions, each payout has the postings its status calls for. Run by
`check_ledger` after the ledger's own (payments/ledger/checks.py), on one side
at a time: that side's wallets, payouts and in-transit account."""

from collections import defaultdict
from collections.abc import Iterator

from django.db.models import Sum

from ..ledger.checks import CHUNK, Kind, totals_by
from ..ledger.hooks import NamedLedgerCheck
from ..ledger.models import (
    PAYOUTS_IN_TRANSIT,
    WALLET_PREFIX,
    LedgerLine,
    LedgerTransaction,
    side_account,
)
from ..ledger.selectors import account_balance
from .models import Payout, PayoutItem
from .selectors import PAYOUT_KINDS, covered_by_live_payout

_WALLET_KINDS = (
    Kind.COLLECTION,
    Kind.PAYOUT,
    Kind.PAYOUT_RETURNED,
    Kind.REFUND,
    Kind.REFUND_RETURNED,
    Kind.DISPUTE_HELD,
    Kind.DISPUTE_RELEASED,
    Kind.DISPUTE_LOST,
)


def _wallet_nets(livemode: bool) -> dict[str, int]:
    """Per merchant: the sum of the `net` of every kind that moves a wallet."""
    return totals_by(
        LedgerTransaction.objects.filter(kind__in=_WALLET_KINDS, livemode=livemode),
        "merchant__public_id",
        "net",
    )


def wallets_match(livemode: bool) -> Iterator[str]:
    """Each merchant's available balance (wallet lines) equals its collections
    net of fees less payouts plus returned payouts less refunds plus refunds
    returned less disputes held plus disputes released and fees given back on
    disputes lost; it is never negative unless refunds or disputes made it so
    (money already paid out given back, DESIGN sections 14 and 19); its
    pending payout (its share of payouts_in_transit) equals its open payouts."""
    side_lines = LedgerLine.objects.filter(transaction__livemode=livemode)
    lines = totals_by(side_lines.filter(account__startswith=WALLET_PREFIX), "account")
    headers = _wallet_nets(livemode)
    in_transit = totals_by(
        side_lines.filter(account=side_account(PAYOUTS_IN_TRANSIT, livemode)),
        "transaction__merchant__public_id",
    )
    open_payouts = totals_by(
        Payout.objects.filter(status__in=Payout.OPEN, merchant__livemode=livemode),
        "merchant__public_id",
    )
    refunded = set(
        LedgerTransaction.objects.filter(
            kind__in=(Kind.REFUND, Kind.DISPUTE_HELD), livemode=livemode
        )
        .values_list("merchant__public_id", flat=True)
        .distinct()
        .order_by()
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
        if available < 0 and merchant_id not in refunded:
            yield (
                f"wallet of {merchant_id} is negative ({available}) without "
                "refunds or disputes"
            )
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


def payouts_match(livemode: bool) -> Iterator[str]:
    """Each payout has exactly the postings its status calls for, for its own
    amount and merchant; every payout posting belongs to a payout; and
    payouts_in_transit holds exactly the open payouts."""
    postings = defaultdict(dict)
    for reference, kind, amount, merchant_id in (
        LedgerTransaction.objects.filter(kind__in=_PAYOUT_KINDS, livemode=livemode)
        .values_list("reference", "kind", "amount", "merchant_id")
        .iterator(chunk_size=CHUNK)
    ):
        postings[reference][kind] = (amount, merchant_id)
    payouts = Payout.objects.filter(merchant__livemode=livemode)
    for payout in (
        payouts.only("public_id", "status", "amount", "merchant_id")
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
    account = side_account(PAYOUTS_IN_TRANSIT, livemode)
    in_transit = -account_balance(account)
    open_total = (
        payouts.filter(status__in=Payout.OPEN).aggregate(total=Sum("amount"))["total"]
        or 0
    )
    if in_transit != open_total:
        yield f"{account} holds {in_transit}, the open payouts {open_total}"


def payouts_match_their_lines(livemode: bool) -> Iterator[str]:
    """Each payout's amount is what the wallet lines it paid out add up to (its
    settlement report), and each wallet's available balance is what its lines
    no live payout paid out add up to (what the next payout pays)."""
    covered = totals_by(
        PayoutItem.objects.filter(payout__merchant__livemode=livemode),
        "payout_id",
        "line__amount",
    )
    for pk, public_id, amount in (
        Payout.objects.filter(merchant__livemode=livemode)
        .order_by("id")
        .values_list("pk", "public_id", "amount")
        .iterator(chunk_size=CHUNK)
    ):
        if -(covered.get(pk) or 0) != amount:
            yield (
                f"payout {public_id} is for {amount}, the lines it paid out add "
                f"up to {-(covered.get(pk) or 0)}"
            )
    wallet_lines = LedgerLine.objects.filter(
        account__startswith=WALLET_PREFIX, transaction__livemode=livemode
    )
    balances = totals_by(wallet_lines, "account")
    unpaid = totals_by(
        wallet_lines.exclude(transaction__kind__in=PAYOUT_KINDS).filter(
            ~covered_by_live_payout()
        ),
        "account",
    )
    for account in sorted(set(balances) | set(unpaid)):
        if balances.get(account, 0) != unpaid.get(account, 0):
            yield (
                f"{account} holds {-balances.get(account, 0)}, its lines not paid "
                f"out add up to {-unpaid.get(account, 0)}"
            )


CHECKS = (
    NamedLedgerCheck("wallets match their transactions", wallets_match),
    NamedLedgerCheck("payouts match their postings", payouts_match),
    NamedLedgerCheck(
        "payouts match the lines they paid out", payouts_match_their_lines
    ),
)
