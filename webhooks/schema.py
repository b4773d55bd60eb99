"""OpenAPI description of the webhook endpoints (21 test, 22 replay, 23 failed
attempts) and of the events API.

Imported by config.api.schema_generator.discover_schema_modules(); see
config.api.schema for what every operation gets without saying (security,
common error statuses).
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.request_fields import describe_fields, webhook_url
from config.api.schema import (
    CSV_FORMAT,
    LIVEMODE,
    PAGINATION,
    TIMESTAMP,
    TRUE,
    component,
    list_envelope,
    nullable,
    obj,
    ok_envelope,
    path_id,
    string,
    with_csv,
)

from . import api
from .models import EVENT_TYPES, TEST_EVENT_TYPE, DeliveryAttempt
from .serializers import CREATED_AFTER_EXAMPLE, WebhookTestInput

describe_fields(
    WebhookTestInput,
    webhook_url=webhook_url(
        "Defaults to the merchant's webhook URL. It must use https and must not "
        "point to a private, loopback or reserved address."
    ),
)

OUTCOME_FIELDS = {
    "delivered": {"type": "boolean"},
    "status_code": nullable(
        {"type": "integer", "description": "Null when no HTTP answer came."}
    ),
    "latency_ms": {"type": "integer", "minimum": 0},
    "error": string(
        "Only when `delivered` is false: why (`HTTP 500`, `timeout after 10 s`, "
        "`connection refused`)."
    ),
}
DELIVERY_OUTCOME = component(
    "WebhookDeliveryOutcome",
    obj({"ok": TRUE, **OUTCOME_FIELDS}, optional=("error",)),
)
REPLAY_OUTCOME = component(
    "WebhookReplayOutcome",
    obj(
        {"ok": TRUE, **OUTCOME_FIELDS, "event_id": string("`evt_...`")},
        optional=("error",),
    ),
)
FAILED_ATTEMPT = component(
    "WebhookFailedAttempt",
    obj(
        {
            "id": string("`dlv_...`"),
            "livemode": LIVEMODE,
            "event_id": string(
                "`evt_...`; for a `test` attempt, the id of the test event it "
                "sent (not stored: it cannot be replayed)."
            ),
            "event_type": string("`webhook.test` for a `test` attempt."),
            "url": string(),
            "attempt": {
                "type": "integer",
                "minimum": 1,
                "description": "Its number among the event's attempts of the same "
                "`trigger`: 1 to 9 in the retry schedule, 1, 2, ... for replays, "
                "1 for a test.",
            },
            "trigger": string(
                "What sent it: `scheduled` (the first attempt or a retry of the "
                "schedule), `replay` (a replay you asked for, through the API or "
                "the dashboard, or one our staff sent), `test` (a test event, "
                "through the API or the dashboard's button).",
                enum=DeliveryAttempt.Trigger.values,
            ),
            "status_code": nullable({"type": "integer"}),
            "error": string(),
            "latency_ms": {"type": "integer", "minimum": 0},
            "attempted_at": TIMESTAMP,
            "next_attempt_at": nullable(
                {
                    **TIMESTAMP,
                    "description": "When the retry schedule sends the event again "
                    "after this failed `scheduled` attempt; null after the last "
                    "one, and always null for a `replay` or a `test`.",
                }
            ),
        }
    ),
)

# What the service POSTs to the merchant's webhook URL, and what the events API
# answers for each event: one envelope (OpenAPI 3.0 has no webhooks section).
# docs/webhooks.md lists the event types and their `data`.
EVENT_ENVELOPE = component(
    "WebhookEventEnvelope",
    obj(
        {
            "eventId": string("`evt_...`: dedupe on it (at-least-once delivery)."),
            "eventType": string(
                ", ".join(f"`{kind}`" for kind in (*EVENT_TYPES, TEST_EVENT_TYPE))
                + " ([event catalogue](/docs/webhooks/#event-catalogue))."
            ),
            "merchantId": string("`mer_...`"),
            "livemode": LIVEMODE,
            "createdAt": TIMESTAMP,
            "data": {"type": "object", "additionalProperties": True},
        },
        description="Body of an outbound webhook delivery, signed in "
        "`X-Service-Signature` (hex HMAC-SHA256 of the raw body with the webhook "
        "secret). The events API answers each event in this very envelope.",
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="webhook_test",
        summary="Send a signed test event to your webhook URL",
        description="Either field defaults to the merchant's settings. A failed "
        "delivery is still a 200 with `delivered: false` and `error`.",
        request=WebhookTestInput,
        responses={200: DELIVERY_OUTCOME},
    )
)(api.WebhookTestApi)

extend_schema_view(
    post=extend_schema(
        operation_id="webhook_event_replay",
        summary="Replay an event: send it again now",
        parameters=[path_id("event_id", "evt", "The event's identifier")],
        request=None,
        responses={200: REPLAY_OUTCOME},
    )
)(api.EventReplayApi)

extend_schema_view(
    get=extend_schema(
        operation_id="webhook_failed_attempts",
        summary="List failed delivery attempts, newest first",
        parameters=[
            OpenApiParameter(
                "event_id", str, description="Only this event's attempts (`evt_...`)."
            ),
            *PAGINATION,
        ],
        responses={200: list_envelope(FAILED_ATTEMPT)},
    )
)(api.FailedAttemptsApi)

extend_schema_view(
    get=extend_schema(
        operation_id="event_list",
        summary="List your events of the last 30 days, newest first",
        description="Each item is the envelope the event's webhook carried, "
        "whether or not it was delivered. Events older than 30 days are not "
        "listed. `?format=csv` (or `Accept: text/csv`) answers every event as CSV, "
        "each with its delivery, as the dashboard's delivery log shows it "
        "([CSV exports](/docs/api/#csv-exports)).",
        parameters=[
            OpenApiParameter(
                "type",
                {"type": "string", "enum": list(EVENT_TYPES)},
                description="Only events of this type.",
            ),
            OpenApiParameter(
                "created_after",
                {"type": "string", "format": "date-time"},
                description="Only events created after this moment: ISO 8601 "
                f"with its offset, for example `{CREATED_AFTER_EXAMPLE}`.",
            ),
            *PAGINATION,
            CSV_FORMAT,
        ],
        responses=with_csv(
            list_envelope(EVENT_ENVELOPE),
            "`event_id, created_at, event_type, resource_type, resource_id, "
            "order_reference, delivery_status, attempts, last_trigger, "
            "last_status_code, last_error, last_attempted_at, next_attempt_at, "
            "delivered_at, livemode`.",
        ),
    )
)(api.EventListApi)

extend_schema_view(
    get=extend_schema(
        operation_id="event_detail",
        summary="Get one of your events as its webhook carried it",
        description="Events older than 30 days are a 404, like another merchant's.",
        parameters=[path_id("event_id", "evt", "The event's identifier")],
        responses={200: ok_envelope(EVENT_ENVELOPE)},
    )
)(api.EventDetailApi)
