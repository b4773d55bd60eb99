"""Reads of the dashboard's wallet pages, scoped to one merchant (DESIGN §8, §12)."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.db.models import Count, QuerySet, Sum
from django.db.models.functions import TruncDate
from django.utils import timezone

from ..ledger import selectors as ledger_selectors
from ..ledger.models import REFUNDS_IN_TRANSIT, LedgerTransaction


@dataclass(frozen=True)
class DayTotal:
    day: date
    amount: int  # gross collected that day (kobo)
    net: int  # what the wallet received for it
    count: int  # payments collected


def daily_collections(merchant, *, days: int = 90, today: date | None = None):
    """Collections (deposits and installments) per local day over the last `days`
    days, today included, oldest first; days without any are zero."""
    today = today or timezone.localdate()
    first = today - timedelta(days=days - 1)
    zone = timezone.get_current_timezone()
    rows = (
        LedgerTransaction.objects.filter(
            merchant=merchant,
            kind=LedgerTransaction.Kind.COLLECTION,
            created_at__gte=datetime.combine(first, time.min, tzinfo=zone),
            created_at__lt=datetime.combine(
                today + timedelta(days=1), time.min, tzinfo=zone
            ),
        )
        .annotate(day=TruncDate("created_at", tzinfo=zone))
        .values("day")
        .annotate(amount=Sum("amount"), net=Sum("net"), count=Count("id"))
    )
    by_day = {row["day"]: row for row in rows}
    totals = []
    for offset in range(days):
        day = first + timedelta(days=offset)
        row = by_day.get(day)
        totals.append(
            DayTotal(day, row["amount"], row["net"], row["count"])
            if row
            else DayTotal(day, 0, 0, 0)
        )
    return totals


REFUND_KINDS = (
    LedgerTransaction.Kind.REFUND,
    LedgerTransaction.Kind.REFUND_SETTLED,
    LedgerTransaction.Kind.REFUND_RETURNED,
)


def refund_movements(merchant) -> QuerySet[LedgerTransaction]:
    """The merchant's plan refunds in the ledger, newest first: each processor
    refund asked for (`refund`), paid to the customer (`refund_settled`, which
    does not touch the wallet) or failed and returned (`refund_returned`)."""
    return LedgerTransaction.objects.filter(
        merchant=merchant, kind__in=REFUND_KINDS
    ).order_by("-created_at", "-id")


def refunds_in_transit(merchant) -> int:
    """The merchant's refunds asked of the processor and not yet settled (its
    share of `refunds_in_transit`, a kept balance)."""
    return ledger_selectors.merchant_in_transit(merchant, REFUNDS_IN_TRANSIT)
