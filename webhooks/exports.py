"""The CSV columns of the webhook delivery log (config.exports; docs/webhooks.md,
"Exports"): one row per event, with its delivery and its latest attempt."""

from config.api.formats import iso_utc
from config.exports import CsvExport, output_columns

from .models import Event


def delivery_row(event: Event) -> dict:
    """An event of a `with_latest_attempt` query, as its CSV row shows it."""
    data = event.data
    delivery = getattr(event, "delivery", None)
    return {
        "event_id": event.public_id,
        "created_at": iso_utc(event.created_at),
        "event_type": event.event_type,
        "resource_type": data.get("resourceType", ""),
        "resource_id": data.get("resourceId", ""),
        "order_reference": data.get("orderReference", ""),
        "delivery_status": delivery.status if delivery else "",
        "attempts": delivery.attempts if delivery else 0,
        "last_trigger": event.last_trigger or "",
        "last_status_code": event.last_status_code,
        "last_error": event.last_error or "",
        "last_attempted_at": iso_utc(event.last_attempted_at),
        "next_attempt_at": iso_utc(delivery.next_attempt_at) if delivery else None,
        "delivered_at": iso_utc(delivery.delivered_at) if delivery else None,
        "livemode": event.merchant.livemode,
    }


DELIVERIES = CsvExport(
    "webhook_deliveries",
    output_columns(
        "event_id",
        "created_at",
        "event_type",
        "resource_type",
        "resource_id",
        "order_reference",
        "delivery_status",
        "attempts",
        "last_trigger",
        "last_status_code",
        "last_error",
        "last_attempted_at",
        "next_attempt_at",
        "delivered_at",
        "livemode",
    ),
)
