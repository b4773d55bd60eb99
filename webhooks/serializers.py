from datetime import datetime

from rest_framework import serializers

from config.api.formats import iso_utc
from config.api.serializers import StrictCharField, StrictSerializer, StrictURLField

from .models import EVENT_TYPES, Event


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
        "livemode": attempt.merchant.livemode,
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


CREATED_AFTER_EXAMPLE = "2026-03-02T09:00:00Z"


def parse_created_after(value: str) -> datetime:
    """An ISO 8601 date and time with its offset (`Z` or `+01:00`): without one,
    Lagos and UTC readings of the same text are an hour apart."""
    try:
        # RFC 3339 allows a lowercase `t` and `z`; fromisoformat does not.
        moment = datetime.fromisoformat(value.upper())
    except ValueError:
        raise serializers.ValidationError(
            "created_after must be an ISO 8601 date and time, for example "
            f"{CREATED_AFTER_EXAMPLE}."
        ) from None
    if moment.tzinfo is None:
        raise serializers.ValidationError(
            "created_after needs its UTC offset: end it with Z (UTC) or +01:00 "
            f"(Lagos), for example {CREATED_AFTER_EXAMPLE}."
        )
    return moment


class EventListQuery(serializers.Serializer):
    """Query parameters of the events list (`limit`/`offset` are the paginator's)."""

    type = serializers.ChoiceField(
        choices=EVENT_TYPES,
        required=False,
        error_messages={
            "invalid_choice": "type must be one of the event types: "
            + ", ".join(EVENT_TYPES)
            + "."
        },
    )
    created_after = serializers.CharField(
        required=False,
        trim_whitespace=False,
        error_messages={
            "blank": "created_after must be an ISO 8601 date and time, for example "
            f"{CREATED_AFTER_EXAMPLE}."
        },
    )

    def validate_created_after(self, value: str) -> datetime:
        return parse_created_after(value)


def event_output(event: Event) -> dict:
    """An event as its webhook carried it: the stored body every attempt sends,
    parsed, so the API and the deliveries cannot differ. An event stored before
    envelopes said their side is shown with it (its merchant row's, loaded by
    the events' queries) and still sent as it was stored."""
    envelope = event.envelope
    if "livemode" not in envelope:
        envelope["livemode"] = event.merchant.livemode
    return envelope
