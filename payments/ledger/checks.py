"""The ledger's own invariants, verified by `python manage.py check_ledger`.

Each check yields one sentence per breach and nothing when the books are clean.
The ledger's own checks come first, then those of the subpackages whose records
the ledger must match (payouts/ledger_checks.py, gateway/ledger_checks.py), then
what higher apps registered through `payments.ledger.hooks.register_ledger_check`
(installments: each paid installment has exactly one collection); the command
(payments/management/commands/check_ledger.py) puts them together.

Sums are done by the database (one grouped query per check); rows are walked in
Python only where a rule needs them (transactions, payouts), in chunks.

Each check runs on one side (`livemode`, hooks.py): the transactions of that
side against that side's accounts (`side_account`: `test:processor_clearing` on
the test side) and that side's records (payouts, refunds, plans of merchant rows
of that side), so `check_ledger --side live|test` proves each side's books on
their own.
"""

from collections import defaultdict
from collections.abc import Iterator

from django.db.models import Count, F, Q, QuerySet, Sum, Value
from django.db.models.functions import Concat

from .fees import platform_fee
from .hooks import NamedLedgerCheck
from .kept_checks import kept_balances_match
from .models import (
    CUSTOMER_REFUNDS,
    DISPUTES_HELD,
    PAYOUTS_IN_TRANSIT,
    PLATFORM_FEES,
    PROCESSOR_CLEARING,
    REFUNDS_IN_TRANSIT,
    WALLET_PREFIX,
    LedgerLine,
    LedgerTransaction,
    side_account,
    side_accounts,
)
from .selectors import HELD_CHANGE, LEFT_CHANGE

Kind = LedgerTransaction.Kind
REFUND_KINDS = (Kind.REFUND, Kind.REFUND_SETTLED, Kind.REFUND_RETURNED)
DISPUTE_KINDS = (Kind.DISPUTE_HELD, Kind.DISPUTE_RELEASED, Kind.DISPUTE_LOST)
CHUNK = 2000


def totals_by(rows: QuerySet, by: str, field: str = "amount") -> dict:
    """The sum of `field` over `rows`, per value of `by` (one grouped query), for
    every check that holds a record's figures against its rows."""
    return dict(
        rows.order_by().values(by).annotate(total=Sum(field)).values_list(by, "total")
    )


def transactions_balance(livemode: bool) -> Iterator[str]:
    """Every transaction's lines sum to zero, and it has at least two lines."""
    bad = (
        LedgerTransaction.objects.filter(livemode=livemode)
        .annotate(total=Sum("lines__amount"), count=Count("lines"))
        .filter(Q(total__isnull=True) | ~Q(total=0) | Q(count__lt=2))
        .values_list("public_id", "total", "count")
        .order_by("id")
    )
    for public_id, total, count in bad.iterator(chunk_size=CHUNK):
        yield (
            f"transaction {public_id} does not balance: its {count} line(s) sum "
            f"to {total or 0}"
        )


def accounts_known(livemode: bool) -> Iterator[str]:
    """A transaction is on its merchant row's side; its lines post only to the
    known accounts of its side (a test transaction never to a live platform
    account, nor a live one to a `test:` one); a wallet line belongs to a
    transaction of that wallet's own merchant (so of its side)."""
    astray = (
        LedgerTransaction.objects.filter(livemode=livemode, merchant__isnull=False)
        .exclude(merchant__livemode=livemode)
        .values_list("public_id", "merchant__public_id")
        .order_by("id")
    )
    for public_id, merchant_id in astray.iterator(chunk_size=CHUNK):
        yield f"transaction {public_id} is not on its merchant {merchant_id}'s side"
    lines = LedgerLine.objects.filter(transaction__livemode=livemode)
    unknown = (
        lines.exclude(account__in=side_accounts(livemode))
        .exclude(account__startswith=WALLET_PREFIX)
        .values_list("account", flat=True)
        .order_by()
        .distinct()
    )
    for account in unknown:
        yield f"lines post to an unknown account {account!r}"
    strays = (
        lines.filter(account__startswith=WALLET_PREFIX)
        .annotate(
            owner=Concat(Value(WALLET_PREFIX), "transaction__merchant__public_id")
        )
        .exclude(account=F("owner"))
        .values_list("transaction__public_id", "account")
        .order_by("id")
    )
    for public_id, account in strays.iterator(chunk_size=CHUNK):
        yield f"transaction {public_id} posts to {account} for another merchant"


def _per_transaction_sums(livemode: bool):
    wallet = Q(lines__account__startswith=WALLET_PREFIX)

    def of(account):
        return Sum(
            "lines__amount", filter=Q(lines__account=side_account(account, livemode))
        )

    return (
        LedgerTransaction.objects.filter(livemode=livemode)
        .annotate(
            clearing=of(PROCESSOR_CLEARING),
            fees=of(PLATFORM_FEES),
            transit=of(PAYOUTS_IN_TRANSIT),
            refunds=of(CUSTOMER_REFUNDS),
            refunding=of(REFUNDS_IN_TRANSIT),
            held=of(DISPUTES_HELD),
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
            "refunding",
            "held",
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
    # A plan refund: fee and net are the (negative) changes to the fee account
    # and the wallet; what each must be is checked per collection below.
    if kind == Kind.REFUND:
        return {"fees": -row["fee"], "wallet": -row["net"], "refunding": -amount}
    if kind == Kind.REFUND_SETTLED:
        return {"refunding": amount, "clearing": -amount}
    if kind == Kind.REFUND_RETURNED:
        return {"refunding": amount, "fees": -row["fee"], "wallet": -row["net"]}
    # A dispute: held out of the wallet, then released to it or lost out of
    # clearing with the fee given back (checked per collection below).
    if kind == Kind.DISPUTE_HELD:
        return {"wallet": amount, "held": -amount}
    if kind == Kind.DISPUTE_RELEASED:
        return {"held": amount, "wallet": -amount}
    if kind == Kind.DISPUTE_LOST:
        return {
            "held": amount,
            "clearing": -amount,
            "fees": -row["fee"],
            "wallet": -row["net"],
        }
    return None


_MERCHANT_KINDS = (
    Kind.COLLECTION,
    Kind.PAYOUT,
    Kind.PAYOUT_SETTLED,
    Kind.PAYOUT_RETURNED,
    *REFUND_KINDS,
    *DISPUTE_KINDS,
)


def headers_match_lines(livemode: bool) -> Iterator[str]:
    """Each transaction's amount, fee and net are what its lines say: the fee is
    the 2.5% rule, net is the wallet's change, and every account holds what the
    kind of movement moves."""
    accounts = (
        "clearing",
        "fees",
        "transit",
        "refunds",
        "refunding",
        "held",
        "wallet",
    )
    for row in _per_transaction_sums(livemode).iterator(chunk_size=CHUNK):
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


def _refund_movements(kinds, livemode: bool) -> dict[str, dict]:
    """Per part reference (or dispute id, with `DISPUTE_KINDS`): its postings
    {kind: (amount, fee, collection reference, merchant pk)}, on one side."""
    found: dict[str, dict] = defaultdict(dict)
    for reference, kind, amount, fee, collection, merchant_id in (
        LedgerTransaction.objects.filter(kind__in=kinds, livemode=livemode)
        .values_list(
            "reference", "kind", "amount", "fee", "processor_reference", "merchant_id"
        )
        .order_by("id")
        .iterator(chunk_size=CHUNK)
    ):
        found[reference][kind] = (amount, fee, collection, merchant_id)
    return found


def _refund_breaches(reference: str, kinds: dict) -> Iterator[str]:
    requested = kinds.get(Kind.REFUND)
    if requested is None:
        yield f"refund {reference} is settled or returned but was never requested"
        return
    if Kind.REFUND_SETTLED in kinds and Kind.REFUND_RETURNED in kinds:
        yield f"refund {reference} is both settled and returned"
    for kind, (amount, _, collection, merchant_id) in kinds.items():
        if (amount, collection, merchant_id) != (
            requested[0],
            requested[2],
            requested[3],
        ):
            yield f"refund {reference}: its {kind} posting does not match its request"
    settled = kinds.get(Kind.REFUND_SETTLED)
    if settled is not None and settled[1] != 0:
        yield f"refund {reference}: a settlement moves no fee"


def _dispute_breaches(reference: str, kinds: dict) -> Iterator[str]:
    held = kinds.get(Kind.DISPUTE_HELD)
    if held is None:
        yield f"dispute {reference} is released or lost but never held anything"
        return
    if Kind.DISPUTE_RELEASED in kinds and Kind.DISPUTE_LOST in kinds:
        yield f"dispute {reference} is both released and lost"
    for kind, (amount, _, collection, merchant_id) in kinds.items():
        if (amount, collection, merchant_id) != (held[0], held[2], held[3]):
            yield f"dispute {reference}: its {kind} posting does not match its hold"
    if kinds.get(Kind.DISPUTE_RELEASED, (0, 0))[1] != 0 or held[1] != 0:
        yield f"dispute {reference}: a hold or a release moves no fee"


def _credit_balance(account: str) -> int:
    total = LedgerLine.objects.filter(account=account).aggregate(t=Sum("amount"))["t"]
    return -(total or 0)


def _collections_by_reference(livemode: bool) -> dict[str, list]:
    """{processor reference: [amount, fee, merchant pk]} of every collection of
    one side."""
    return {
        reference: [amount, fee, merchant_id]
        for reference, amount, fee, merchant_id in LedgerTransaction.objects.filter(
            kind=Kind.COLLECTION, livemode=livemode
        )
        .exclude(processor_reference="")
        .values_list("processor_reference", "amount", "fee", "merchant_id")
        .iterator(chunk_size=CHUNK)
    }


def refunds_match_collections(livemode: bool) -> Iterator[str]:
    """Every plan refund posting (DESIGN section 14) and every dispute posting
    (section 19) belongs to a collection of its merchant; each part is
    requested once and settled or returned at most once, each dispute held
    once and released or lost at most once, for its own amount; a collection
    never gives back more than it collected, and the fee kept on it is exactly
    the fee of what it has left counting what open disputes hold (collected
    minus refunds not returned minus disputes lost); refunds_in_transit holds
    exactly the parts still open, disputes_held the disputes still open."""
    collections = _collections_by_reference(livemode)
    touched: set[str] = set()
    open_total = 0
    held_total = 0
    # What open disputes hold of each collection: in the fee's base.
    holding: dict[str, int] = defaultdict(int)
    movements = [
        ("refund", _refund_breaches, _refund_movements(REFUND_KINDS, livemode)),
        ("dispute", _dispute_breaches, _refund_movements(DISPUTE_KINDS, livemode)),
    ]
    for what, breaches, found in movements:
        for reference, kinds in sorted(found.items()):
            yield from breaches(reference, kinds)
            for kind, (amount, fee, collection, merchant_id) in kinds.items():
                state = collections.get(collection)
                if state is None or state[2] != merchant_id:
                    yield (
                        f"{what} {reference} ({kind}) names no collection {collection}"
                    )
                    continue
                touched.add(collection)
                # What it has left, by the rule of selectors.collections_left.
                state[0] += LEFT_CHANGE.get(kind, 0) * amount
                state[1] += fee
                holding[collection] += HELD_CHANGE.get(kind, 0) * amount
            if set(kinds) == {Kind.REFUND}:
                open_total += kinds[Kind.REFUND][0]
            if set(kinds) == {Kind.DISPUTE_HELD}:
                held_total += kinds[Kind.DISPUTE_HELD][0]
    for collection in sorted(touched):
        remaining, fee_kept, _ = collections[collection]
        base = remaining + holding[collection]
        if remaining < 0:
            yield f"collection {collection} gave back more than it collected"
        elif fee_kept != platform_fee(base):
            yield (
                f"collection {collection} keeps a fee of {fee_kept} on "
                f"{base} left, not {platform_fee(base)}"
            )
    for account, what, total in (
        (REFUNDS_IN_TRANSIT, "the open refunds", open_total),
        (DISPUTES_HELD, "the open disputes", held_total),
    ):
        account = side_account(account, livemode)
        held = _credit_balance(account)
        if held != total:
            yield f"{account} holds {held}, {what} {total}"


BUILT_IN = (
    NamedLedgerCheck("every transaction balances", transactions_balance),
    NamedLedgerCheck("lines post to known accounts", accounts_known),
    NamedLedgerCheck("amounts and fees match the lines", headers_match_lines),
    NamedLedgerCheck(
        "refunds and disputes match their collections and keep the fee rule",
        refunds_match_collections,
    ),
    NamedLedgerCheck("kept balances equal their lines", kept_balances_match),
)
