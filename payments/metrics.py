"""Payments' figures for /metrics, counted at scrape time
(config/observability/sources.py): the refunds of verification charges (the
small charge that proves a card or an account), by their status at the
processor."""

from django.db.models import Count, Sum
from prometheus_client.core import GaugeMetricFamily

from .gateway.models import ProcessorRefund


def metric_families():
    rows = (
        ProcessorRefund.objects.values_list("status")
        .annotate(n=Count("id"), kobo=Sum("amount"))
        .order_by()
    )
    totals = {status: (n, kobo) for status, n, kobo in rows}
    count = GaugeMetricFamily(
        "payments_verification_refunds",
        "Refunds of verification charges asked of the processor, by status there.",
        labels=["status"],
    )
    kobo = GaugeMetricFamily(
        "payments_verification_refunds_kobo",
        "Kobo of those refunds, by status.",
        labels=["status"],
    )
    for status in ProcessorRefund.Status.values:
        n, amount = totals.get(status, (0, 0))
        count.add_metric([status], n)
        kobo.add_metric([status], amount or 0)
    yield count
    yield kobo
