from datetime import UTC, datetime, timedelta

from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from config.api.ids import looks_like_public_id, row_by_public_id
from merchants.models import Merchant

from .models import DeliveryAttempt, Event


def event_of_merchant(*, merchant: Merchant, public_id: str) -> Event | None:
    """The merchant's own event; another merchant's id reads as unknown."""
    return row_by_public_id(
        Event.objects.filter(merchant=merchant).select_related("merchant"),
        public_id,
        "evt",
    )


# How far back the events API reaches (DESIGN section 16): older events are
# neither listed nor fetched, though the outbox keeps them.
EVENTS_LISTED_FOR = timedelta(days=30)


def _recent_events(merchant: Merchant, now: datetime) -> QuerySet[Event]:
    # With its merchant: an event's representation says its side.
    return Event.objects.filter(
        merchant=merchant, created_at__gte=now - EVENTS_LISTED_FOR
    ).select_related("merchant")


def recent_events(
    *,
    merchant: Merchant,
    event_type: str | None = None,
    created_after: datetime | None = None,
) -> QuerySet[Event]:
    """The merchant's events of the last 30 days, newest first (the index
    `webhooks_event_merchant` serves it); `created_after` is exclusive."""
    now = timezone.now()
    events = _recent_events(merchant, now)
    if created_after is not None:
        if created_after >= now:
            # Nothing is created later than now; and a far-future bound (year
            # 9999 with a negative offset) could not even be written in UTC.
            return events.none()
        if created_after >= now - EVENTS_LISTED_FOR:
            # Inside the window, so its UTC form exists (year 1 with a positive
            # offset, before the window, has none).
            events = events.filter(created_at__gt=created_after.astimezone(UTC))
    if event_type is not None:
        events = events.filter(event_type=event_type)
    return events.order_by("-created_at", "-id")


def recent_event_of_merchant(*, merchant: Merchant, public_id: str) -> Event | None:
    """One of the merchant's events of the last 30 days; another merchant's id,
    or an older event, reads as unknown."""
    return row_by_public_id(_recent_events(merchant, timezone.now()), public_id, "evt")


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
    return attempts.select_related("event", "merchant").order_by("-attempted_at", "-id")


def with_latest_attempt(events: QuerySet[Event]) -> QuerySet[Event]:
    """Events with their delivery and the outcome of their latest attempt
    (`last_status_code`, `last_error`, `last_attempted_at`, `last_trigger`)."""
    latest = DeliveryAttempt.objects.filter(event=OuterRef("pk")).order_by(
        "-attempted_at", "-id"
    )
    return events.select_related("delivery").annotate(
        last_status_code=Subquery(latest.values("status_code")[:1]),
        last_error=Subquery(latest.values("error")[:1]),
        last_attempted_at=Subquery(latest.values("attempted_at")[:1]),
        last_trigger=Subquery(latest.values("trigger")[:1]),
    )
