"""How long the stored requests of endpoints 24 and 25 are kept.

A stored request is the evidence of what the processor said; what it changed
lives on elsewhere (the ProcessorEvent row that made the event take effect once,
the ledger, the payout or payment method). So a request whose handling is over
is deleted after a retention (docs/operations.md, docs/decisions.md), by the
daily `payments-purge-inbound-requests` schedule.
"""

from datetime import timedelta

from django.db.models import Q
from django.utils import timezone

from ..models import InboundRequest

# A signed request whose handling is over (handled, ignored, duplicate, refused).
INBOUND_RETENTION = timedelta(days=90)
# A request refused for its signature (a small record, at most a few a minute).
REFUSED_INBOUND_RETENTION = timedelta(days=7)
PURGE_BATCH = 1000


def inbound_requests_purge() -> int:
    """Delete the stored requests past their retention; returns how many.

    Kept whatever their age: signed requests not handled yet (the retry pass of
    endpoint 24 or an operator still needs them). Their ProcessorEvent rows stay,
    no longer linked to a request."""
    now = timezone.now()
    expired = InboundRequest.objects.filter(
        Q(
            signature_valid=True,
            processed_at__isnull=False,
            received_at__lt=now - INBOUND_RETENTION,
        )
        # Never handled and never will be: refused for the signature (rows from
        # before the signature was checked first have no processed_at).
        | (
            (Q(signature_valid=False) | Q(signature_valid__isnull=True))
            & Q(received_at__lt=now - REFUSED_INBOUND_RETENTION)
        )
    ).order_by("pk")
    purged = 0
    # In batches: a long first run must not hold one huge delete.
    while batch := list(expired.values_list("pk", flat=True)[:PURGE_BATCH]):
        _, per_model = InboundRequest.objects.filter(pk__in=batch).delete()
        purged += per_model.get(InboundRequest._meta.label, 0)
    return purged
