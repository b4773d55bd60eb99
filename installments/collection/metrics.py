"""The collection's figures for /metrics, counted from their tables at scrape
time (put together with the other features' in installments/metrics.py):
successful charges (deposits at checkout and installments), declines by
reason, and how far the auto-debit engine is behind. The engine and checkout do
no metrics work of their own.

Collections and declines are business figures, by side (`mode`: live, test);
the backlog is the engine's, which works both sides alike, and has none."""

from django.db.models import Count, Min, Q, Sum
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from config.observability.families import MODES, mode_of

from ..deposits.models import DepositAttempt
from ..deposits.services import FAILURE_REASONS
from ..plans.history import InstallmentStatusChange
from ..plans.models import Installment

KINDS = ("deposit", "installment")
# Every reason of the closed `payment.failed` list is shown, at 0 until it
# happens, so that a rate over it starts from the first decline.
REASONS = tuple(sorted(FAILURE_REASONS))
UNKNOWN_REASON = "unknown"


def _by_side(rows) -> dict[str, tuple[int, int]]:
    """{mode: (count, kobo)} of `rows`, by their plan's merchant's side."""
    return {
        mode_of(live): (n, kobo or 0)
        for live, n, kobo in rows.values_list("plan__merchant__livemode")
        .annotate(n=Count("id"), kobo=Sum("amount"))
        .values_list("plan__merchant__livemode", "n", "kobo")
        .order_by()
    }


def collections():
    deposits = _by_side(
        DepositAttempt.objects.filter(status=DepositAttempt.Status.SUCCEEDED)
    )
    installments = _by_side(Installment.objects.filter(status=Installment.Status.PAID))
    count = CounterMetricFamily(
        "installments_collections",
        "Successful charges: deposits at checkout and installments collected, "
        "by mode (live, test).",
        labels=["kind", "mode"],
    )
    kobo = CounterMetricFamily(
        "installments_collected_kobo",
        "Kobo collected by those charges (gross, before the platform fee).",
        labels=["kind", "mode"],
    )
    for kind, totals in (("deposit", deposits), ("installment", installments)):
        for mode in MODES.values():
            n, total = totals.get(mode, (0, 0))
            count.add_metric([kind, mode], n)
            kobo.add_metric([kind, mode], total)
    return count, kobo


def declines():
    found = {
        (kind, reason, mode): 0
        for kind in KINDS
        for reason in REASONS
        for mode in MODES.values()
    }
    deposits = (
        DepositAttempt.objects.filter(status=DepositAttempt.Status.FAILED)
        .values_list("failure_reason", "plan__merchant__livemode")
        .annotate(n=Count("id"))
        .order_by()
    )
    # Every move to `failed` is one attempt that failed (the history).
    installments = (
        InstallmentStatusChange.objects.filter(to_status=Installment.Status.FAILED)
        .values_list("reason", "installment__plan__merchant__livemode")
        .annotate(n=Count("id"))
        .order_by()
    )
    for kind, rows in (("deposit", deposits), ("installment", installments)):
        for reason, live, n in rows:
            key = (kind, reason or UNKNOWN_REASON, mode_of(live))
            found[key] = found.get(key, 0) + n
    family = CounterMetricFamily(
        "installments_declines",
        "Charges that failed, by kind, normalized reason and mode (live, test).",
        labels=["kind", "reason", "mode"],
    )
    for (kind, reason, mode), n in sorted(found.items()):
        family.add_metric([kind, reason, mode], n)
    return family


def backlog():
    """What the engine has not reached yet, from the indexes its claims read."""
    now = timezone.now()
    due = Installment.objects.filter(
        status__in=[Installment.Status.SCHEDULED, Installment.Status.FAILED],
        next_attempt_at__lte=now,
    ).aggregate(count=Count("id"), oldest=Min("next_attempt_at"))
    in_flight = Installment.objects.filter(
        status=Installment.Status.PROCESSING
    ).aggregate(
        count=Count("id"), expired=Count("id", filter=Q(next_attempt_at__lt=now))
    )
    yield GaugeMetricFamily(
        "installments_due",
        "Installments (and retries) due now that no collection pass has claimed.",
        value=due["count"],
    )
    oldest = due["oldest"]
    yield GaugeMetricFamily(
        "installments_due_oldest_age_seconds",
        "How long the oldest of those has been due (0 when none is).",
        value=(now - oldest).total_seconds() if oldest else 0,
    )
    family = GaugeMetricFamily(
        "installments_in_flight",
        "Installment charges claimed and not yet settled, by their claim's lease "
        "(an expired lease waits for a later pass to verify its reference).",
        labels=["lease"],
    )
    family.add_metric(["current"], in_flight["count"] - in_flight["expired"])
    family.add_metric(["expired"], in_flight["expired"])
    yield family
