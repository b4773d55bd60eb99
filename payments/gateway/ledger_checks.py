"""The ledger's invariant about verification charges: each is posted once, each
processed refund once. Run by `check_ledger` after the ledger's own
(payments/ledger/checks.py)."""

from collections.abc import Iterator

from ..ledger.checks import CHUNK, Kind
from ..ledger.hooks import NamedLedgerCheck
from ..ledger.models import CUSTOMER_REFUNDS, LedgerTransaction
from ..ledger.selectors import account_balance
from .models import ProcessorCharge
from .services.charges import REFUND_PROCESSED


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
    held = -account_balance(CUSTOMER_REFUNDS)
    if held != owed:
        yield f"customer_refunds holds {held}, verification charges owe {owed}"


CHECKS = (
    NamedLedgerCheck(
        "verification charges match their postings", verification_charges_match
    ),
)
