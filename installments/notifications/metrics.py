"""The messages' figures for /metrics, counted at scrape time (registered as
their own source, `installments_messages`, by installments/apps.py through
installments/metrics.py)."""

from datetime import timedelta

from django.db.models import Count, Min, Q
from django.utils import timezone
from prometheus_client.core import GaugeMetricFamily

from .models import Message

# A message whose lease ran out this long ago should have been taken by the
# sweep (every minute): it is stuck, and the sweep is not running.
MESSAGE_STUCK_AFTER = timedelta(minutes=5)


def message_families():
    """Messages not sent yet, by kind, from the index of the rows still
    `sending` (few): waiting (a sender holds them, or the sweep takes them at
    its next pass) and stuck (their lease ran out over 5 minutes ago, so no
    sweep runs), and how long the oldest has waited."""
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
        "Messages to customers and merchants recorded and not sent yet that a "
        "sender holds or the next sweep takes, by kind.",
        labels=["kind"],
    )
    stuck = GaugeMetricFamily(
        "installments_messages_stuck",
        "Messages to customers and merchants not sent whose sender's lease ran "
        "out over 5 minutes ago: the sweep (every minute) is not running.",
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
        "How long the oldest message not sent yet has waited (0 when none waits).",
        value=(now - oldest).total_seconds() if oldest else 0,
    )
