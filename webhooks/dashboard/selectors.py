"""Reads of the dashboard's delivery log (DESIGN §12). Every query is scoped to
one merchant, so another merchant's id reads as unknown (a 404 to the page)."""

from django.db.models import QuerySet

from config.api.ids import row_by_public_id
from merchants.models import Merchant

from ..models import DeliveryAttempt, Event
from ..selectors import with_latest_attempt


def event_log(
    *, merchant: Merchant, event_type: str = "", status: str = ""
) -> QuerySet[Event]:
    """The merchant's events, newest first, with their delivery and the outcome
    of their latest attempt (`last_status_code`, `last_error`, `last_attempted_at`,
    `last_trigger`).
    """
    events = with_latest_attempt(Event.objects.filter(merchant=merchant)).order_by(
        "-created_at", "-id"
    )
    if event_type:
        events = events.filter(event_type=event_type)
    if status:
        events = events.filter(delivery__status=status)
    return events


def event_with_attempts(*, merchant: Merchant, event_id: str) -> Event | None:
    events = Event.objects.select_related("delivery").filter(merchant=merchant)
    return row_by_public_id(events, event_id, "evt")


def attempts_of(event: Event) -> QuerySet[DeliveryAttempt]:
    """In the order they were made (each trigger numbers its own)."""
    return event.attempts.order_by("attempted_at", "id")


def recent_tests(*, merchant: Merchant, limit: int) -> list[DeliveryAttempt]:
    """The merchant's latest test attempts (their events are not stored)."""
    return list(
        DeliveryAttempt.objects.filter(
            merchant=merchant, trigger=DeliveryAttempt.Trigger.TEST
        ).order_by("-attempted_at", "-id")[:limit]
    )


def attempt_of_merchant(
    *, merchant: Merchant, attempt_id: str
) -> DeliveryAttempt | None:
    """One delivery attempt (`dlv_...`) of the merchant's, or None."""
    attempts = DeliveryAttempt.objects.select_related("event").filter(merchant=merchant)
    return row_by_public_id(attempts, attempt_id, "dlv")
