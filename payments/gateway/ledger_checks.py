"""The ledger's invariant about verification charges: each is posted once, each
processed refund once. Run by `check_ledger` after the ledger's own
(payments/ledger/checks.py), on one side at a time.

A verification charge names no merchant: its side is the side its posting was
made on (the side of the payment method it verified). A successful charge with
no posting at all has no side to read and is reported on the live side."""

from collections.abc import Iterator

from ..ledger.checks import CHUNK, Kind
from ..ledger.hooks import NamedLedgerCheck
from ..ledger.models import CUSTOMER_REFUNDS, LedgerTransaction, side_account
from ..ledger.selectors import account_balance
from .models import ProcessorCharge
from .services.charges import REFUND_PROCESSED


def verification_charges_match(livemode: bool) -> Iterator[str]:
    """Each successful verification charge is posted once for its amount, each
    processed refund once; nothing else is; customer_refunds holds what is still
    to be given back (all on one side)."""
    verifications = LedgerTransaction.objects.filter(
        kind__in=(Kind.VERIFICATION_CHARGE, Kind.VERIFICATION_REFUND)
    )
    posted = {
        (kind, reference): amount
        for kind, reference, amount in verifications.filter(livemode=livemode)
        .values_list("kind", "reference", "amount")
        .iterator(chunk_size=CHUNK)
    }
    # A charge's side is its posting's; one not posted is the live side's.
    posted_on_test = verifications.filter(
        kind=Kind.VERIFICATION_CHARGE, livemode=False
    ).values("reference")
    charges = ProcessorCharge.objects.filter(
        status=ProcessorCharge.Status.SUCCESS,
        purpose__in=ProcessorCharge.VERIFICATION_PURPOSES,
    )
    if livemode:
        charges = charges.exclude(reference__in=posted_on_test)
    else:
        charges = charges.filter(reference__in=posted_on_test)
    charges = charges.values_list(
        "reference", "amount", "refund__status", "refund__amount"
    ).order_by("id")
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
    account = side_account(CUSTOMER_REFUNDS, livemode)
    held = -account_balance(account)
    if held != owed:
        yield f"{account} holds {held}, verification charges owe {owed}"


CHECKS = (
    NamedLedgerCheck(
        "verification charges match their postings", verification_charges_match
    ),
)
