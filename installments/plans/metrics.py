"""The plans' own figure for /metrics, counted at scrape time (put together with
the features' in installments/metrics.py): payment plans by status."""

from django.db.models import Count
from prometheus_client.core import GaugeMetricFamily

from .models import PaymentPlan


def plans():
    counts = dict(
        PaymentPlan.objects.values_list("status").annotate(n=Count("id")).order_by()
    )
    family = GaugeMetricFamily(
        "installments_plans", "Payment plans by status.", labels=["status"]
    )
    for status in PaymentPlan.Status.values:
        family.add_metric([status], counts.get(status, 0))
    return family
