"""Refunds' figures for /metrics, counted at scrape time (put together with the
other features' in installments/metrics.py)."""

from prometheus_client.core import CounterMetricFamily

from config.observability.families import count_and_kobo_by_status

from .models import Refund


def refunds():
    """Merchants' refunds of plans by status and side: how many and how much
    (kobo)."""
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
        livemode="merchant__livemode",
        family=CounterMetricFamily,
    )
