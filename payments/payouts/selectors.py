"""Reads of payouts: a merchant's payouts, the wallet lines a new payout would
pay out, and a payout's settlement report (the lines it paid out)."""

from collections.abc import Iterator
from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, QuerySet

from ..ledger.models import LedgerLine, LedgerTransaction, wallet_account
from . import orders
from .models import Payout, PayoutItem

# Wallet lines that are payouts themselves (money leaving for the bank, or a
# payout's money coming back) are never what a payout pays out.
PAYOUT_KINDS = (LedgerTransaction.Kind.PAYOUT, LedgerTransaction.Kind.PAYOUT_RETURNED)
REPORT_CHUNK = 2000


def payouts_of(merchant) -> QuerySet[Payout]:
    """The merchant's payouts, newest first, each with `line_count`: the wallet
    lines it paid out."""
    return (
        Payout.objects.filter(merchant=merchant)
        .select_related("merchant")  # its side, in every representation
        .annotate(line_count=Count("items"))
        .order_by("-created_at", "-id")
    )


def payout_of(merchant, payout_id: str) -> Payout | None:
    return payouts_of(merchant).filter(public_id=payout_id).first()


def payouts_by_id(merchant, payout_ids) -> dict[str, Payout]:
    """The merchant's payouts of these ids, by id (ids of another merchant's
    payouts are left out)."""
    rows = Payout.objects.filter(merchant=merchant, public_id__in=list(payout_ids))
    return {payout.public_id: payout for payout in rows}


def covered_by_live_payout() -> Exists:
    """A wallet line (OuterRef) a payout that was not returned paid out."""
    return Exists(
        PayoutItem.objects.filter(line=OuterRef("pk")).exclude(
            payout__status__in=Payout.RETURNED
        )
    )


def wallet_lines_unpaid(merchant) -> list[tuple[int, int]]:
    """(pk, amount) of every line of the merchant's wallet no live payout has
    paid out: collections, refunds and refunds returned not yet paid out, and
    those of payouts that failed or were reversed. One statement, so one
    snapshot: a line committed after it is left for the next payout. What they
    add up to (negated) is the available balance."""
    return list(
        LedgerLine.objects.filter(account=wallet_account(merchant.public_id))
        .exclude(transaction__kind__in=PAYOUT_KINDS)
        .filter(~covered_by_live_payout())
        .order_by("pk")
        .values_list("pk", "amount")
    )


@dataclass(frozen=True)
class SettlementLine:
    """One wallet line a payout paid out, signed from the merchant's point of
    view: `net` (what it added to the payout) = `gross` - `fee`."""

    payout_id: str
    transaction_id: str
    type: str
    created_at: object
    order_reference: str
    payment_plan_id: str
    installment_id: str
    refund_id: str
    processor_reference: str
    gross: int
    fee: int
    net: int
    currency: str
    description: str
    livemode: bool


def settlement_items(payout: Payout) -> QuerySet[PayoutItem]:
    """The payout's items, oldest line first, with their transactions."""
    return (
        PayoutItem.objects.filter(payout=payout)
        .select_related("line__transaction")
        .order_by("line_id")
    )


def _line(payout: Payout, item: PayoutItem, order: orders.OrderOf) -> SettlementLine:
    txn = item.line.transaction
    net = -item.line.amount
    return SettlementLine(
        payout_id=payout.public_id,
        transaction_id=txn.public_id,
        type=txn.kind,
        created_at=txn.created_at,
        order_reference=order.order_reference,
        payment_plan_id=order.payment_plan_id,
        installment_id=order.installment_id,
        refund_id=txn.resource_id if txn.resource_type == "refund" else "",
        processor_reference=txn.processor_reference,
        gross=net + txn.fee,
        fee=txn.fee,
        net=net,
        currency=txn.currency,
        description=txn.description,
        livemode=payout.merchant.livemode,
    )


def settlement_lines(payout: Payout, items) -> list[SettlementLine]:
    """Settlement lines of some items, their orders looked up in one go."""
    items = list(items)
    found = orders.orders_of(
        {
            (item.line.transaction.resource_type, item.line.transaction.resource_id)
            for item in items
        }
    )
    return [
        _line(
            payout,
            item,
            found.get(
                (
                    item.line.transaction.resource_type,
                    item.line.transaction.resource_id,
                ),
                orders.NO_ORDER,
            ),
        )
        for item in items
    ]


def settlement_report(payout: Payout) -> Iterator[SettlementLine]:
    """Every line the payout paid out, streamed a chunk at a time (a server-side
    cursor), their orders looked up a chunk at a time."""
    chunk = []
    for item in settlement_items(payout).iterator(chunk_size=REPORT_CHUNK):
        chunk.append(item)
        if len(chunk) >= REPORT_CHUNK:
            yield from settlement_lines(payout, chunk)
            chunk = []
    yield from settlement_lines(payout, chunk)
