"""The audit log's list query and an entry as the API (and the CSV) show it."""

from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from rest_framework import serializers

from config.api.formats import iso_utc
from config.text import no_control_characters

from .actions import ACTIONS
from .models import AuditEntry

LAGOS = ZoneInfo("Africa/Lagos")
MOMENT_EXAMPLE = "2026-05-01T09:00:00Z"
ACTOR_MAX_LENGTH = 254


def parse_moment(value: str) -> datetime:
    """A date and time with its offset (`Z`, `+01:00`), or a date: the start of
    that day in Lagos."""
    try:
        if len(value) == 10:
            return datetime.combine(date.fromisoformat(value), time(), tzinfo=LAGOS)
        moment = datetime.fromisoformat(value.upper())
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise serializers.ValidationError(
            "Send a date (YYYY-MM-DD, Lagos) or an ISO 8601 date and time with "
            f"its offset, for example {MOMENT_EXAMPLE}."
        )
    return moment


class AuditListQuery(serializers.Serializer):
    """`?action=&actor=&since=&until=` (`limit`/`offset` are the paginator's)."""

    action = serializers.ChoiceField(
        choices=sorted(ACTIONS),
        required=False,
        error_messages={"invalid_choice": "Not an action of the audit log."},
    )
    actor = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=ACTOR_MAX_LENGTH,
        validators=[no_control_characters],
    )
    since = serializers.CharField(required=False, max_length=40)
    until = serializers.CharField(required=False, max_length=40)

    def validate_since(self, value: str) -> datetime:
        return parse_moment(value)

    def validate_until(self, value: str) -> datetime:
        return parse_moment(value)


def audit_entry_output(entry: AuditEntry) -> dict:
    return {
        "id": entry.public_id,
        "created_at": iso_utc(entry.created_at),
        "action": entry.action,
        "actor": {
            "kind": entry.actor_kind,
            "id": entry.actor_id,
            "label": entry.actor_label,
        },
        "object_type": entry.object_type,
        "object_id": entry.object_id,
        "changes": entry.changes,
        "ip": entry.ip,
        "user_agent": entry.user_agent,
        # The side's log it is in (DESIGN section 21).
        "livemode": entry.merchant.livemode,
    }
