"""Refunds' figures for /metrics, counted at scrape time (put together with the
other features' in installments/metrics.py)."""

from django.db.models import Count, Sum
from prometheus_client.core import CounterMetricFamily

from .models import Refund


def refunds():
    """Merchants' refunds of plans by status: how many and how much (kobo)."""
    rows = {
        status: (n, kobo or 0)
        for status, n, kobo in Refund.objects.values_list("status")
        .annotate(n=Count("id"), kobo=Sum("amount"))
        .values_list("status", "n", "kobo")
        .order_by()
    }
    count = CounterMetricFamily(
        "installments_refunds",
        "Refunds of plans by status (pending until every processor refund settled).",
        labels=["status"],
    )
    kobo = CounterMetricFamily(
        "installments_refunded_kobo",
        "Kobo those refunds took off orders (reduced and paid back).",
        labels=["status"],
    )
    for status in Refund.Status.values:
        n, total = rows.get(status, (0, 0))
        count.add_metric([status], n)
        kobo.add_metric([status], total)
    yield count
    yield kobo
