"""The ledger's invariants, verified by `python manage.py check_ledger`.

Each check yields one sentence per breach and nothing when the books are clean.
The ledger's own checks come first; higher apps add theirs through
`payments.hooks.register_ledger_check` (installments: each paid installment has
exactly one collection).

Sums are done by the database (one grouped query per check); rows are walked in
Python only where a rule needs them (transactions, payouts), in chunks.
"""

from collections import defaultdict
from collections.abc import Iterable, Iterator

from django.db.models import Count, F, Q, Sum, Value
from django.db.models.functions import Concat

from .fees import platform_fee
from .hooks import NamedLedgerCheck, ledger_checks
from .models import LedgerLine, LedgerTransaction, Payout, ProcessorCharge
from .models.ledger import (
    CUSTOMER_REFUNDS,
    PAYOUTS_IN_TRANSIT,
    PLATFORM_FEES,
    PROCESSOR_CLEARING,
    WALLET_PREFIX,
)
from .services.charges import REFUND_PROCESSED

Kind = LedgerTransaction.Kind
FIXED_ACCOUNTS = (
    PROCESSOR_CLEARING,
    PLATFORM_FEES,
    PAYOUTS_IN_TRANSIT,
    CUSTOMER_REFUNDS,
)
CHUNK = 2000


def transactions_balance() -> Iterator[str]:
    """Every transaction's lines sum to zero, and it has at least two lines."""
    bad = (
        LedgerTransaction.objects.annotate(
            total=Sum("lines__amount"), count=Count("lines")
        )
        .filter(Q(total__isnull=True) | ~Q(total=0) | Q(count__lt=2))
        .values_list("public_id", "total", "count")
        .order_by("id")
    )
    for public_id, total, count in bad.iterator(chunk_size=CHUNK):
        yield (
            f"transaction {public_id} does not balance: its {count} line(s) sum "
            f"to {total or 0}"
        )


def accounts_known() -> Iterator[str]:
    """Lines post only to the known accounts; a wallet line belongs to a
    transaction of that wallet's own merchant."""
    unknown = (
        LedgerLine.objects.exclude(account__in=FIXED_ACCOUNTS)
        .exclude(account__startswith=WALLET_PREFIX)
        .values_list("account", flat=True)
        .distinct()
    )
    for account in unknown:
        yield f"lines post to an unknown account {account!r}"
    strays = (
        LedgerLine.objects.filter(account__startswith=WALLET_PREFIX)
        .annotate(
            owner=Concat(Value(WALLET_PREFIX), "transaction__merchant__public_id")
        )
        .exclude(account=F("owner"))
        .values_list("transaction__public_id", "account")
        .order_by("id")
    )
    for public_id, account in strays.iterator(chunk_size=CHUNK):
        yield f"transaction {public_id} posts to {account} for another merchant"


def _per_transaction_sums():
    wallet = Q(lines__account__startswith=WALLET_PREFIX)
    return (
        LedgerTransaction.objects.annotate(
            clearing=Sum("lines__amount", filter=Q(lines__account=PROCESSOR_CLEARING)),
            fees=Sum("lines__amount", filter=Q(lines__account=PLATFORM_FEES)),
            transit=Sum("lines__amount", filter=Q(lines__account=PAYOUTS_IN_TRANSIT)),
            refunds=Sum("lines__amount", filter=Q(lines__account=CUSTOMER_REFUNDS)),
            wallet=Sum("lines__amount", filter=wallet),
        )
        .values(
            "public_id",
            "kind",
            "amount",
            "fee",
            "net",
            "merchant_id",
            "clearing",
            "fees",
            "transit",
            "refunds",
            "wallet",
        )
        .order_by("id")
    )


def _expected_lines(row: dict) -> dict | None:
    """What each account of a transaction must hold, from its kind and header."""
    amount = row["amount"]
    kind = row["kind"]
    if kind == Kind.COLLECTION:
        return {"clearing": amount, "fees": -row["fee"], "wallet": -row["net"]}
    if kind == Kind.VERIFICATION_CHARGE:
        return {"clearing": amount, "refunds": -amount}
    if kind == Kind.VERIFICATION_REFUND:
        return {"clearing": -amount, "refunds": amount}
    if kind == Kind.PAYOUT:
        return {"wallet": amount, "transit": -amount}
    if kind == Kind.PAYOUT_SETTLED:
        return {"transit": amount, "clearing": -amount}
    if kind == Kind.PAYOUT_RETURNED:
        source = "clearing" if row["clearing"] else "transit"
        return {source: amount, "wallet": -amount}
    return None


_MERCHANT_KINDS = (
    Kind.COLLECTION,
    Kind.PAYOUT,
    Kind.PAYOUT_SETTLED,
    Kind.PAYOUT_RETURNED,
)


def headers_match_lines() -> Iterator[str]:
    """Each transaction's amount, fee and net are what its lines say: the fee is
    the 2.5% rule, net is the wallet's change, and every account holds what the
    kind of movement moves."""
    accounts = ("clearing", "fees", "transit", "refunds", "wallet")
    for row in _per_transaction_sums().iterator(chunk_size=CHUNK):
        name = f"transaction {row['public_id']} ({row['kind']})"
        expected = _expected_lines(row)
        if expected is None:
            yield f"{name} is of an unknown kind"
            continue
        if row["kind"] in _MERCHANT_KINDS and row["merchant_id"] is None:
            yield f"{name} names no merchant"
        if row["kind"] == Kind.COLLECTION:
            if row["fee"] != platform_fee(row["amount"]):
                yield (
                    f"{name}: fee {row['fee']} is not 2.5% of {row['amount']} "
                    f"({platform_fee(row['amount'])})"
                )
            if row["net"] != row["amount"] - row["fee"]:
                yield f"{name}: net {row['net']} is not amount - fee"
        moved = -(row["wallet"] or 0)
        if row["net"] != moved:
            yield f"{name}: net {row['net']} but the wallet moved by {moved}"
        for account in accounts:
            held = row[account] or 0
            if held != expected.get(account, 0):
                yield (
                    f"{name}: {account} lines hold {held}, expected "
                    f"{expected.get(account, 0)}"
                )


def wallets_match() -> Iterator[str]:
    """Each merchant's available balance (wallet lines) equals its collections
    net of fees less payouts plus returned payouts, and is never negative; its
    pending payout (its share of payouts_in_transit) equals its open payouts."""
    lines = dict(
        LedgerLine.objects.filter(account__startswith=WALLET_PREFIX)
        .order_by()
        .values("account")
        .annotate(total=Sum("amount"))
        .values_list("account", "total")
    )
    headers = dict(
        LedgerTransaction.objects.filter(
            kind__in=(Kind.COLLECTION, Kind.PAYOUT, Kind.PAYOUT_RETURNED)
        )
        .order_by()
        .values("merchant__public_id")
        .annotate(total=Sum("net"))
        .values_list("merchant__public_id", "total")
    )
    in_transit = dict(
        LedgerLine.objects.filter(account=PAYOUTS_IN_TRANSIT)
        .order_by()
        .values("transaction__merchant__public_id")
        .annotate(total=Sum("amount"))
        .values_list("transaction__merchant__public_id", "total")
    )
    open_payouts = dict(
        Payout.objects.filter(status__in=Payout.OPEN)
        .order_by()
        .values("merchant__public_id")
        .annotate(total=Sum("amount"))
        .values_list("merchant__public_id", "total")
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
    in_transit = -(
        LedgerLine.objects.filter(account=PAYOUTS_IN_TRANSIT).aggregate(
            total=Sum("amount")
        )["total"]
        or 0
    )
    open_total = (
        Payout.objects.filter(status__in=Payout.OPEN).aggregate(total=Sum("amount"))[
            "total"
        ]
        or 0
    )
    if in_transit != open_total:
        yield (f"payouts_in_transit holds {in_transit}, the open payouts {open_total}")


def verification_charges_match() -> Iterator[str]:
    """Each successful verification charge is posted once for its amount, each
    processed refund once; nothing else is; customer_refunds holds what is still
    to be given back."""
    posted = {
        (kind, reference): amount
        for kind, reference, amount in LedgerTransaction.objects.filter(
            kind__in=(Kind.VERIFICATION_CHARGE, Kind.VERIFICATION_REFUND)
        )
        .values_list("kind", "reference", "amount")
        .iterator(chunk_size=CHUNK)
    }
    charges = (
        ProcessorCharge.objects.filter(
            status=ProcessorCharge.Status.SUCCESS,
            purpose__in=ProcessorCharge.VERIFICATION_PURPOSES,
        )
        .values_list("reference", "amount", "refund__status", "refund__amount")
        .order_by("id")
    )
    owed = 0
    for reference, amount, refund_status, refund_amount in charges.iterator(
        chunk_size=CHUNK
    ):
        charged = posted.pop((Kind.VERIFICATION_CHARGE, reference), None)
        if charged != amount:
            yield (
                f"verification charge {reference} of {amount} is posted as {charged}"
            )
        refunded = posted.pop((Kind.VERIFICATION_REFUND, reference), None)
        if refund_status == REFUND_PROCESSED:
            if refunded != refund_amount:
                yield (
                    f"processed refund of {reference} ({refund_amount}) is posted "
                    f"as {refunded}"
                )
            owed += amount - (refund_amount or 0)
        else:
            if refunded is not None:
                yield (
                    f"refund of {reference} is posted but the processor has not "
                    f"processed it ({refund_status or 'no refund'})"
                )
            owed += amount
    for kind, reference in sorted(posted):
        yield f"{kind} posting {reference} matches no successful verification charge"
    held = -(
        LedgerLine.objects.filter(account=CUSTOMER_REFUNDS).aggregate(
            total=Sum("amount")
        )["total"]
        or 0
    )
    if held != owed:
        yield f"customer_refunds holds {held}, verification charges owe {owed}"


BUILT_IN = (
    NamedLedgerCheck("every transaction balances", transactions_balance),
    NamedLedgerCheck("lines post to known accounts", accounts_known),
    NamedLedgerCheck("amounts and fees match the lines", headers_match_lines),
    NamedLedgerCheck("wallets match their transactions", wallets_match),
    NamedLedgerCheck("payouts match their postings", payouts_match),
    NamedLedgerCheck(
        "verification charges match their postings", verification_charges_match
    ),
)


def all_checks() -> tuple[NamedLedgerCheck, ...]:
    return BUILT_IN + ledger_checks()


def run_checks(
    checks: Iterable[NamedLedgerCheck] | None = None,
) -> Iterator[tuple[NamedLedgerCheck, str]]:
    """(check, breach) for every breach found, in the order of the checks."""
    for named in all_checks() if checks is None else checks:
        for breach in named.check():
            yield named, breach
