"""The envelope every event goes out in (docs/webhooks.md), and the payload of
the `webhook.test` event: built here only. The payloads of the other events
are their emitting app's (`installments/plans/events.py`, `payments`' payouts)."""

import json
from datetime import datetime

from config.api.formats import iso_utc


def envelope_body(
    *,
    event_id: str,
    event_type: str,
    merchant_id: str,
    livemode: bool,
    created_at: datetime,
    data: dict,
) -> str:
    """The body as sent, serialized once: every attempt sends these bytes.
    `merchantId` is the id the merchant knows (the same on both sides), and
    `livemode` says the side (a test event goes only to the test webhook)."""
    envelope = {
        "eventId": event_id,
        "eventType": event_type,
        "merchantId": merchant_id,
        "livemode": livemode,
        "createdAt": iso_utc(created_at),
        "data": data,
    }
    return json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)


def webhook_test_data() -> dict:
    return {
        "resourceType": "webhook",
        "message": "A test event: your endpoint received and can verify it.",
    }
