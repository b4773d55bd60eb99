"""Outbound webhooks' figures for /metrics, counted from the outbox at scrape time
(config/observability/sources.py): attempts by outcome, deliveries by status and
how late the due ones are. Delivery itself does no metrics work.

Attempts and deliveries are counted by side (`mode`: live, test; a test event
goes to the test webhook); what is due and how late is the outbox's, which
delivers both sides alike, and has none."""

from django.db.models import Count, Min
from django.utils import timezone
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

from config.observability.families import MODES, mode_of

from .models import Delivery, DeliveryAttempt


def metric_families():
    yield _attempts()
    yield _deliveries()
    yield from _due()


def _attempts():
    counts = {
        (trigger, delivered, mode_of(live)): n
        for trigger, delivered, live, n in DeliveryAttempt.objects.values_list(
            "trigger", "delivered", "merchant__livemode"
        )
        .annotate(n=Count("id"))
        .order_by()
    }
    family = CounterMetricFamily(
        "webhooks_delivery_attempts",
        "HTTP attempts to deliver an event, by what sent them (the retry "
        "schedule, a merchant's replay, a test), their result and mode.",
        labels=["trigger", "result", "mode"],
    )
    for mode in MODES.values():
        for trigger in DeliveryAttempt.Trigger.values:
            for delivered, result in ((True, "delivered"), (False, "failed")):
                n = counts.get((trigger, delivered, mode), 0)
                family.add_metric([trigger, result, mode], n)
    return family


def _deliveries():
    counts = {
        (status, mode_of(live)): n
        for status, live, n in Delivery.objects.values_list(
            "status", "event__merchant__livemode"
        )
        .annotate(n=Count("id"))
        .order_by()
    }
    family = GaugeMetricFamily(
        "webhooks_deliveries",
        "Events by delivery status (failed: every scheduled attempt failed; a "
        "replay may still deliver it) and mode.",
        labels=["status", "mode"],
    )
    for mode in MODES.values():
        for status in Delivery.Status.values:
            family.add_metric([status, mode], counts.get((status, mode), 0))
    return family


def _due():
    """Pending deliveries whose time has come and that no pass holds (a pass's
    claim moves `next_attempt_at` to the end of its lease)."""
    now = timezone.now()
    due = Delivery.objects.filter(
        status=Delivery.Status.PENDING, next_attempt_at__lte=now
    ).aggregate(count=Count("id"), oldest=Min("next_attempt_at"))
    yield GaugeMetricFamily(
        "webhooks_deliveries_due",
        "Deliveries due now and not yet attempted.",
        value=due["count"],
    )
    oldest = due["oldest"]
    yield GaugeMetricFamily(
        "webhooks_delivery_lag_seconds",
        "How long the oldest due delivery has waited past its due time (0 when "
        "none waits): the outbox's lag behind its schedule.",
        value=(now - oldest).total_seconds() if oldest else 0,
    )
