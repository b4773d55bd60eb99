"""The collection's figures for /metrics, counted from their tables at scrape
time (put together with the other features' in installments/metrics.py):
successful charges (deposits at checkout and installments), declines by
reason, and how far the auto-debit engine is behind. The engine and checkout do
no metrics work of their own."""

from django.db.models import Count, Min, Q, Sum
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from ..deposits.models import DepositAttempt
from ..deposits.services import FAILURE_REASONS
from ..plans.history import InstallmentStatusChange
from ..plans.models import Installment

KINDS = ("deposit", "installment")
# Every reason of the closed `payment.failed` list is shown, at 0 until it
# happens, so that a rate over it starts from the first decline.
REASONS = tuple(sorted(FAILURE_REASONS))
UNKNOWN_REASON = "unknown"


def collections():
    deposits = DepositAttempt.objects.filter(
        status=DepositAttempt.Status.SUCCEEDED
    ).aggregate(count=Count("id"), kobo=Sum("amount"))
    installments = Installment.objects.filter(status=Installment.Status.PAID).aggregate(
        count=Count("id"), kobo=Sum("amount")
    )
    count = CounterMetricFamily(
        "installments_collections",
        "Successful charges: deposits at checkout and installments collected.",
        labels=["kind"],
    )
    kobo = CounterMetricFamily(
        "installments_collected_kobo",
        "Kobo collected by those charges (gross, before the platform fee).",
        labels=["kind"],
    )
    for kind, totals in (("deposit", deposits), ("installment", installments)):
        count.add_metric([kind], totals["count"])
        kobo.add_metric([kind], totals["kobo"] or 0)
    return count, kobo


def declines():
    found = {(kind, reason): 0 for kind in KINDS for reason in REASONS}
    deposits = (
        DepositAttempt.objects.filter(status=DepositAttempt.Status.FAILED)
        .values_list("failure_reason")
        .annotate(n=Count("id"))
        .order_by()
    )
    # Every move to `failed` is one attempt that failed (the history).
    installments = (
        InstallmentStatusChange.objects.filter(to_status=Installment.Status.FAILED)
        .values_list("reason")
        .annotate(n=Count("id"))
        .order_by()
    )
    for kind, rows in (("deposit", deposits), ("installment", installments)):
        for reason, n in rows:
            key = (kind, reason or UNKNOWN_REASON)
            found[key] = found.get(key, 0) + n
    family = CounterMetricFamily(
        "installments_declines",
        "Charges that failed, by kind and normalized reason.",
        labels=["kind", "reason"],
    )
    for (kind, reason), n in sorted(found.items()):
        family.add_metric([kind, reason], n)
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
