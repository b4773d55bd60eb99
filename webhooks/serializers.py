from config.api.formats import iso_utc
from config.api.serializers import StrictCharField, StrictSerializer, StrictURLField


class WebhookTestInput(StrictSerializer):
    """Body of endpoint 21; either field defaults to the merchant's settings."""

    webhook_url = StrictURLField(max_length=500, required=False)
    webhook_secret = StrictCharField(
        min_length=16, max_length=200, required=False, trim_whitespace=False
    )


def outcome_output(outcome) -> dict:
    """`delivered, status_code, latency_ms[, error]`: siblings of `ok`."""
    body = {
        "delivered": outcome.delivered,
        "status_code": outcome.status_code,
        "latency_ms": outcome.latency_ms,
    }
    if not outcome.delivered:
        body["error"] = outcome.error
    return body


def failed_attempt_output(attempt) -> dict:
    """An item of endpoint 23: `attempt` counts within its `trigger`."""
    return {
        "id": attempt.public_id,
        "event_id": attempt.event_public_id,
        "event_type": attempt.event_type,
        "url": attempt.url,
        "attempt": attempt.attempt,
        "trigger": attempt.trigger,
        "status_code": attempt.status_code,
        "error": attempt.error,
        "latency_ms": attempt.latency_ms,
        "attempted_at": iso_utc(attempt.attempted_at),
        "next_attempt_at": iso_utc(attempt.next_attempt_at),
    }
