"""Payments' figures for /metrics, counted at scrape time
(config/observability/sources.py): the refunds of verification charges (the
small charge that proves a card or an account), by their status at the
processor, and by side (`mode`): a verification charge's side is its
posting's (payments/gateway/ledger_checks.py)."""

from django.db.models import Exists, OuterRef

from config.observability.families import count_and_kobo_by_status

from .gateway.models import ProcessorRefund
from .ledger.models import LedgerTransaction


def metric_families():
    posted_on_test = LedgerTransaction.objects.filter(
        kind=LedgerTransaction.Kind.VERIFICATION_CHARGE,
        reference=OuterRef("charge__reference"),
        livemode=False,
    )
    yield from count_and_kobo_by_status(
        # Live unless the charge was posted on the test side.
        ProcessorRefund.objects.annotate(charge_livemode=~Exists(posted_on_test)),
        livemode="charge_livemode",
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
