"""Invariants between plans and the ledger, run by `python manage.py check_ledger`
(registered with payments in InstallmentsConfig.ready()).

A collection's ledger reference is the installment's id (`inst_...`, collected
by the engine or paid early on its own, for what was left after a partial
collection), a partial collection's (`inst_..._a<n>p`, for the installment's
`amount_paid`), the deposit attempt's reference
(`plan_..._d<n>`) or a payoff's (`plan_..._po<k>`: one collection for the
installments it paid); the database allows one collection per reference.

Each check runs on one side (`livemode`): that side's collections against the
plans of that side's merchant rows.
"""

from collections.abc import Iterator

from django.db.models import Exists, F, OuterRef

from payments.ledger.models import LedgerTransaction

from .deposits.models import DepositAttempt
from .early.models import EarlyPayment, EarlyPaymentItem
from .plans.models import Installment
from .plans.purged import purged

CHUNK = 2000


def _collections(livemode: bool) -> dict[str, tuple[int, int | None]]:
    """reference -> (amount, merchant pk) of every collection of one side."""
    return {
        reference: (amount, merchant_id)
        for reference, amount, merchant_id in LedgerTransaction.objects.filter(
            kind=LedgerTransaction.Kind.COLLECTION, livemode=livemode
        )
        .values_list("reference", "amount", "merchant_id")
        .iterator(chunk_size=CHUNK)
    }


def _paid(livemode: bool) -> Iterator[tuple[str, str, int, int]]:
    """(what, reference, amount, merchant pk) of every payment collected: paid
    installments (each on its own, for what was left after a partial
    collection, unless a payoff paid it), partial collections (DESIGN section
    15), successful payoffs, then successful deposits."""
    paid_by_payoff = EarlyPaymentItem.objects.filter(
        installment=OuterRef("pk"),
        early_payment__kind=EarlyPayment.Kind.PAYOFF,
        early_payment__status=EarlyPayment.Status.SUCCEEDED,
    )
    installments = Installment.objects.annotate(owed=F("amount") - F("amount_paid"))
    for what, paid, reference, amount in (
        (
            "installment",
            installments.filter(
                ~Exists(paid_by_payoff), status=Installment.Status.PAID
            ),
            "public_id",
            "owed",
        ),
        (
            "partial collection",
            Installment.objects.filter(amount_paid__gt=0),
            "partial_reference",
            "amount_paid",
        ),
        (
            "payoff",
            EarlyPayment.objects.filter(
                kind=EarlyPayment.Kind.PAYOFF, status=EarlyPayment.Status.SUCCEEDED
            ),
            "reference",
            "amount",
        ),
        (
            "deposit",
            DepositAttempt.objects.filter(status=DepositAttempt.Status.SUCCEEDED),
            "reference",
            "amount",
        ),
    ):
        for row in (
            paid.filter(plan__merchant__livemode=livemode)
            .order_by("id")
            .values_list(reference, amount, "plan__merchant_id")
            .iterator(chunk_size=CHUNK)
        ):
            yield what, *row


def paid_installments_have_one_collection(livemode: bool) -> Iterator[str]:
    """Each paid installment (and each paid deposit) has exactly one collection,
    for its amount, in its plan's merchant's wallet."""
    collections = _collections(livemode)
    for what, reference, amount, merchant_id in _paid(livemode):
        found = collections.get(reference)
        if found is None:
            yield f"{what} {reference} is paid but has no collection"
        elif found != (amount, merchant_id):
            yield (
                f"{what} {reference} of {amount} (merchant #{merchant_id}) is "
                f"collected as {found[0]} (merchant #{found[1]})"
            )


def collections_have_a_payment(livemode: bool) -> Iterator[str]:
    """No collection without a paid installment or a paid deposit behind it."""
    paid = {reference for _, reference, _, _ in _paid(livemode)}
    strays = set(_collections(livemode)) - paid
    # A collection of a plan purged after the retention period (its ledger
    # rows are kept: installments/retention/) has nothing left behind it.
    strays = sorted(strays - purged(strays))
    statuses = dict(
        Installment.objects.filter(public_id__in=strays).values_list(
            "public_id", "status"
        )
    )
    for reference in strays:
        status = statuses.get(reference)
        if status is not None:
            yield f"collection {reference} is for an installment that is {status}"
        else:
            yield f"collection {reference} matches no paid installment or deposit"


def payoffs_cover_their_installments(livemode: bool) -> Iterator[str]:
    """A successful payoff paid each installment it claimed, and its one
    collection is what they add up to."""
    payoffs = EarlyPayment.objects.filter(
        kind=EarlyPayment.Kind.PAYOFF,
        status=EarlyPayment.Status.SUCCEEDED,
        plan__merchant__livemode=livemode,
    ).prefetch_related("items__installment")
    for payoff in payoffs.order_by("id").iterator(chunk_size=CHUNK):
        items = list(payoff.items.all())
        unpaid = sorted(
            item.installment.public_id
            for item in items
            if item.installment.status != Installment.Status.PAID
            or item.installment.processor_reference != payoff.reference
        )
        if unpaid:
            yield f"payoff {payoff.reference} succeeded but did not pay {unpaid}"
        total = sum(item.amount for item in items)
        if total != payoff.amount:
            yield (
                f"payoff {payoff.reference} of {payoff.amount} covers installments "
                f"of {total}"
            )
