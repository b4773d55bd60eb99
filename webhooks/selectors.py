from django.db.models import QuerySet

from merchants.models import Merchant

from .models import DeliveryAttempt, Event


def event_of_merchant(*, merchant: Merchant, public_id: str) -> Event | None:
    """The merchant's own event; another merchant's id reads as unknown."""
    return Event.objects.filter(merchant=merchant, public_id=public_id).first()


def failed_attempts(
    *, merchant: Merchant, event_id: str | None = None
) -> QuerySet[DeliveryAttempt]:
    """The merchant's failed delivery attempts, newest first."""
    attempts = DeliveryAttempt.objects.filter(merchant=merchant, delivered=False)
    if event_id:
        attempts = attempts.filter(event__public_id=event_id)
    return attempts.select_related("event").order_by("-attempted_at", "-id")
