"""Metric families the apps' sources (config/observability/sources.py) build
alike, written once.

Business figures (money, plans, refunds, deliveries) carry a `mode` label,
`live` or `test` (test mode, DESIGN section 21; docs/operations.md, "Metrics"):
each side's figures are a series of their own, so an operator's dashboards and
alerts read `mode="live"` and test traffic never moves them. Every family shows
both modes, at 0 until a row has it."""

from collections.abc import Iterable

from django.db.models import Count, QuerySet, Sum
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

Family = CounterMetricFamily | GaugeMetricFamily
# The `mode` label's values, by the side's livemode.
MODES = {True: "live", False: "test"}


def mode_of(livemode: bool) -> str:
    return MODES[bool(livemode)]


def count_and_kobo_by_status(
    rows: QuerySet,
    *,
    statuses: Iterable[str],
    count: tuple[str, str],
    kobo: tuple[str, str],
    livemode: str,
    family: type[Family] = GaugeMetricFamily,
) -> tuple[Family, Family]:
    """How many of `rows` there are and how many kobo their `amount` adds up to,
    by `status` and `mode` (the side, read from the row's `livemode` lookup,
    e.g. `merchant__livemode`): the families `count` and `kobo` (each a name
    and its help), labelled `status` and `mode`, with a sample for every one of
    `statuses` on each side, at 0 while no row has it, so that a rate over it
    starts from the first row."""
    totals = {
        (status, mode_of(live)): (n, total or 0)
        for status, live, n, total in rows.values_list("status", livemode)
        .annotate(n=Count("id"), total=Sum("amount"))
        .values_list("status", livemode, "n", "total")
        .order_by()
    }
    counted = family(*count, labels=["status", "mode"])
    summed = family(*kobo, labels=["status", "mode"])
    for mode in MODES.values():
        for status in statuses:
            n, total = totals.get((status, mode), (0, 0))
            counted.add_metric([status, mode], n)
            summed.add_metric([status, mode], total)
    return counted, summed
