"""The plans' own figure for /metrics, counted at scrape time (put together with
the features' in installments/metrics.py): payment plans by status and side
(`mode`)."""

from django.db.models import Count
from prometheus_client.core import GaugeMetricFamily

from config.observability.families import MODES, mode_of

from .models import PaymentPlan


def plans():
    counts = {
        (status, mode_of(live)): n
        for status, live, n in PaymentPlan.objects.values_list(
            "status", "merchant__livemode"
        )
        .annotate(n=Count("id"))
        .order_by()
    }
    family = GaugeMetricFamily(
        "installments_plans",
        "Payment plans by status and mode (live, test).",
        labels=["status", "mode"],
    )
    for mode in MODES.values():
        for status in PaymentPlan.Status.values:
            family.add_metric([status, mode], counts.get((status, mode), 0))
    return family
