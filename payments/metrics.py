"""Payments' figures for /metrics, counted at scrape time
(config/observability/sources.py): the refunds of verification charges (the
small charge that proves a card or an account), by their status at the
processor."""

from config.observability.families import count_and_kobo_by_status

from .gateway.models import ProcessorRefund


def metric_families():
    yield from count_and_kobo_by_status(
        ProcessorRefund.objects.all(),
        statuses=ProcessorRefund.Status.values,
        count=(
            "payments_verification_refunds",
            "Refunds of verification charges asked of the processor, by status there.",
        ),
        kobo=(
            "payments_verification_refunds_kobo",
            "Kobo of those refunds, by status.",
        ),
    )
