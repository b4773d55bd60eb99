"""Invariants between disputes, their plans and the ledger, run by
`check_ledger` (registered in InstallmentsConfig.ready()). The ledger checks on
its own that each dispute is held once and released or lost at most once and
that `disputes_held` holds the open ones (payments/ledger/checks.py). On one
side at a time: that side's plans, disputes and postings."""

from collections.abc import Iterator

from django.db.models import Count, Q, Sum

from payments.ledger.hooks import NamedLedgerCheck
from payments.ledger.models import LedgerTransaction

from ..plans.models import PaymentPlan
from .models import Dispute

Kind = LedgerTransaction.Kind
# The postings each status of a dispute holding money calls for.
EXPECTED = {
    Dispute.Status.NEEDS_RESPONSE: {Kind.DISPUTE_HELD},
    Dispute.Status.UNDER_REVIEW: {Kind.DISPUTE_HELD},
    Dispute.Status.WON: {Kind.DISPUTE_HELD, Kind.DISPUTE_RELEASED},
    Dispute.Status.LOST: {Kind.DISPUTE_HELD, Kind.DISPUTE_LOST},
    Dispute.Status.ACCEPTED: {Kind.DISPUTE_HELD, Kind.DISPUTE_LOST},
}


def disputes_match_plans_and_postings(livemode: bool) -> Iterator[str]:
    """Each plan's `open_disputes` (what the engine and early payments read to
    stop collecting) counts its open disputes, and its `amount_charged_back`
    what its lost or accepted disputes held; each dispute has the postings
    its status calls for, for the amount it holds."""
    plans = (
        PaymentPlan.objects.filter(merchant__livemode=livemode)
        .annotate(
            open_found=Count("disputes", filter=Q(disputes__status__in=Dispute.OPEN)),
            back_found=Sum(
                "disputes__amount_held",
                filter=Q(disputes__status__in=Dispute.CHARGED_BACK),
            ),
        )
        .filter(
            Q(open_disputes__gt=0)
            | Q(amount_charged_back__gt=0)
            | Q(open_found__gt=0)
            | Q(back_found__gt=0)
        )
    )
    for plan in plans.values_list(
        "public_id", "open_disputes", "open_found", "amount_charged_back", "back_found"
    ):
        public_id, counted, found, back, back_found = plan
        if counted != found:
            yield f"plan {public_id} counts {counted} open disputes, it has {found}"
        if back != (back_found or 0):
            yield (
                f"plan {public_id} says {back} was charged back, its disputes "
                f"{back_found or 0}"
            )
    postings: dict[str, dict] = {}
    for reference, kind, amount in LedgerTransaction.objects.filter(
        kind__in=(Kind.DISPUTE_HELD, Kind.DISPUTE_RELEASED, Kind.DISPUTE_LOST),
        livemode=livemode,
    ).values_list("reference", "kind", "amount"):
        postings.setdefault(reference, {})[kind] = amount
    for public_id, status, held in (
        Dispute.objects.filter(merchant__livemode=livemode)
        .values_list("public_id", "status", "amount_held")
        .order_by("id")
    ):
        found = postings.pop(public_id, {})
        expected = EXPECTED[status] if held else set()
        if set(found) != expected:
            yield f"dispute {public_id} ({status}) has postings {sorted(found)}"
        elif any(amount != held for amount in found.values()):
            yield f"dispute {public_id}: its postings are not for the {held} it holds"
    for reference in sorted(postings):
        yield f"dispute postings under {reference} belong to no dispute"


CHECKS = (
    NamedLedgerCheck(
        "disputes match their plans and their postings",
        disputes_match_plans_and_postings,
    ),
)
