"""Metric families the apps' sources (config/observability/sources.py) build
alike, written once."""

from collections.abc import Iterable

from django.db.models import Count, QuerySet, Sum
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

Family = CounterMetricFamily | GaugeMetricFamily


def count_and_kobo_by_status(
    rows: QuerySet,
    *,
    statuses: Iterable[str],
    count: tuple[str, str],
    kobo: tuple[str, str],
    family: type[Family] = GaugeMetricFamily,
) -> tuple[Family, Family]:
    """How many of `rows` there are and how many kobo their `amount` adds up to,
    by `status`: the families `count` and `kobo` (each a name and its help),
    labelled `status`, with a sample for every one of `statuses`, at 0 while no
    row has it, so that a rate over it starts from the first row."""
    totals = {
        status: (n, total or 0)
        for status, n, total in rows.values_list("status")
        .annotate(n=Count("id"), total=Sum("amount"))
        .values_list("status", "n", "total")
        .order_by()
    }
    counted = family(*count, labels=["status"])
    summed = family(*kobo, labels=["status"])
    for status in statuses:
        n, total = totals.get(status, (0, 0))
        counted.add_metric([status], n)
        summed.add_metric([status], total)
    return counted, summed
