"""Webhook events emitted and their deliveries' outcomes arranged."""

from django.utils import timezone

from webhooks import services
from webhooks.models import Delivery, Event


def emit(merchant, event_type="goods.release", reference="o-1") -> Event:
    return services.emit_event(
        merchant=merchant,
        event_type=event_type,
        data={
            "resourceType": "payment_plan",
            "resourceId": "plan_1",
            "orderReference": reference,
        },
    )


def settle(event: Event, status: str) -> None:
    """Arrange a delivery outcome without sending anything."""
    now = timezone.now()
    fields = {"status": status, "next_attempt_at": None}
    if status == Delivery.Status.DELIVERED:
        fields["delivered_at"] = now
    else:
        fields["failed_at"] = now
    Delivery.objects.filter(event=event).update(**fields)
