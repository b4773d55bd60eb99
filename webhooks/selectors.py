from django.db.models import Q, QuerySet

from config.api.ids import looks_like_public_id, row_by_public_id
from merchants.models import Merchant

from .models import DeliveryAttempt, Event


def event_of_merchant(*, merchant: Merchant, public_id: str) -> Event | None:
    """The merchant's own event; another merchant's id reads as unknown."""
    return row_by_public_id(Event.objects.filter(merchant=merchant), public_id, "evt")


def failed_attempts(
    *, merchant: Merchant, event_id: str | None = None
) -> QuerySet[DeliveryAttempt]:
    """The merchant's failed delivery attempts, newest first."""
    attempts = DeliveryAttempt.objects.filter(merchant=merchant, delivered=False)
    if event_id:
        if not looks_like_public_id(event_id, "evt"):
            # Any text may come in the query string (a NUL byte makes PostgreSQL
            # refuse the query): an id of the wrong shape matches nothing.
            return attempts.none()
        attempts = attempts.filter(
            Q(event__public_id=event_id) | Q(test_event_id=event_id)
        )
    return attempts.select_related("event").order_by("-attempted_at", "-id")
