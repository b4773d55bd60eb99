"""The plans' figures for /metrics, counted from their tables at scrape time
(config/observability/sources.py): collections, declines by reason, the plans by
status and how far the auto-debit engine is behind. The engine and checkout do no
metrics work of their own."""

from datetime import timedelta

from django.db.models import Count, Min, Q, Sum
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from config.observability.families import count_and_kobo_by_status

from .deposits.models import DepositAttempt
from .deposits.services import FAILURE_REASONS
from .notifications.models import Message
from .plans.history import InstallmentStatusChange
from .plans.models import Installment, PaymentPlan
from .refunds.models import Refund

KINDS = ("deposit", "installment")
# Every reason of the closed `payment.failed` list is shown, at 0 until it
# happens, so that a rate over it starts from the first decline.
REASONS = tuple(sorted(FAILURE_REASONS))
UNKNOWN_REASON = "unknown"


def metric_families():
    yield from _collections()
    yield _declines()
    yield _plans()
    yield from _refunds()
    yield from _backlog()


def _collections():
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


def _declines():
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


def _plans():
    counts = dict(
        PaymentPlan.objects.values_list("status").annotate(n=Count("id")).order_by()
    )
    family = GaugeMetricFamily(
        "installments_plans", "Payment plans by status.", labels=["status"]
    )
    for status in PaymentPlan.Status.values:
        family.add_metric([status], counts.get(status, 0))
    return family


def _refunds():
    """Merchants' refunds of plans by status: how many and how much (kobo)."""
    return count_and_kobo_by_status(
        Refund.objects.all(),
        statuses=Refund.Status.values,
        count=(
            "installments_refunds",
            "Refunds of plans by status (pending until every processor refund "
            "settled).",
        ),
        kobo=(
            "installments_refunded_kobo",
            "Kobo those refunds took off orders (reduced and paid back).",
        ),
        family=CounterMetricFamily,
    )


def _backlog():
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


# A message whose lease ran out this long ago should have been taken by the
# sweep (every minute): it is stuck, and the sweep is not running.
MESSAGE_STUCK_AFTER = timedelta(minutes=5)


def message_families():
    """Reminders and receipts not sent yet, by kind, from the index of the rows
    still `sending` (few): waiting (a sender holds them, or the sweep takes
    them at its next pass) and stuck (their lease ran out over 5 minutes ago,
    so no sweep runs), and how long the oldest has waited."""
    now = timezone.now()
    rows = Message.objects.filter(status=Message.Status.SENDING)
    stuck_before = now - MESSAGE_STUCK_AFTER
    counts = {
        kind: (n, stuck)
        for kind, n, stuck in rows.values_list("kind")
        .annotate(
            n=Count("id"),
            stuck=Count("id", filter=Q(lease_expires_at__lt=stuck_before)),
        )
        .values_list("kind", "n", "stuck")
        .order_by()
    }
    waiting = GaugeMetricFamily(
        "installments_messages_waiting",
        "Customer reminders and receipts recorded and not sent yet that a sender "
        "holds or the next sweep takes, by kind.",
        labels=["kind"],
    )
    stuck = GaugeMetricFamily(
        "installments_messages_stuck",
        "Customer reminders and receipts not sent whose sender's lease ran out "
        "over 5 minutes ago: the sweep (every minute) is not running.",
        labels=["kind"],
    )
    for kind in Message.Kind.values:
        n, late = counts.get(kind, (0, 0))
        waiting.add_metric([kind], n - late)
        stuck.add_metric([kind], late)
    yield waiting
    yield stuck
    oldest = rows.aggregate(oldest=Min("created_at"))["oldest"]
    yield GaugeMetricFamily(
        "installments_messages_oldest_waiting_seconds",
        "How long the oldest reminder or receipt not sent yet has waited (0 when "
        "none waits).",
        value=(now - oldest).total_seconds() if oldest else 0,
    )
