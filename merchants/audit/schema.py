"""OpenAPI description of `GET /api/v1/audit-log` (imported by merchants/schema.py,
which the schema generator discovers)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.request_fields import CONTROL, text_pattern
from config.api.schema import (
    CSV_FORMAT,
    PAGINATION,
    TIMESTAMP,
    component,
    list_envelope,
    nullable,
    obj,
    string,
    with_csv,
)

from . import api
from .actions import ACTIONS
from .models import AuditEntry

AUDIT_ENTRY = component(
    "AuditEntry",
    obj(
        {
            "id": string("The entry's identifier (`aud_...`)."),
            "created_at": TIMESTAMP,
            "action": string(enum=sorted(ACTIONS)),
            "actor": obj(
                {
                    "kind": string(enum=list(AuditEntry.ActorKind.values)),
                    "id": string(
                        "A member's id, an API key's masked prefix, a staff "
                        "username, or `system`."
                    ),
                    "label": string("A member's e-mail, a key's name."),
                }
            ),
            "object_type": string("What was changed: `settings`, `api_key`, ..."),
            "livemode": {
                "type": "boolean",
                "description": "False in the test side's log (test work: see "
                "[Test mode](/docs/test-mode/)).",
            },
            "object_id": string(),
            "changes": {
                "type": "object",
                "description": "Each changed field: `[before, after]`; a secret's "
                'change is the text `"(changed)"`, never its value.',
            },
            "ip": nullable(string("The client's address.")),
            "user_agent": string("The browser or client, on one line."),
        }
    ),
)

# A date (the start of that day in Lagos) or a date and time with its offset.
_MOMENT = {"anyOf": [string(format="date"), string(format="date-time")]}

extend_schema_view(
    get=extend_schema(
        operation_id="audit_log_list",
        summary="List your account's audit log, newest first",
        description="Every sign-in and change made to your account by you, your "
        "API keys or our staff, with the changed fields' values before and after "
        "(never a secret). See [Audit log](/docs/audit-log/).",
        parameters=[
            OpenApiParameter(
                "action",
                string(enum=sorted(ACTIONS)),
                description="Only this action.",
            ),
            OpenApiParameter(
                "actor",
                string(pattern=text_pattern(refused=CONTROL, max_length=254)),
                description="Only this actor: its id or its e-mail.",
            ),
            OpenApiParameter(
                "since",
                _MOMENT,
                description="From this moment on: a date (`2026-05-01`, from the "
                "start of that day in Lagos) or an ISO 8601 date and time with its "
                "offset (`2026-05-01T09:00:00Z`).",
            ),
            OpenApiParameter(
                "until",
                _MOMENT,
                description="Before this moment, written alike.",
            ),
            *PAGINATION,
            CSV_FORMAT,
        ],
        responses=with_csv(
            list_envelope(AUDIT_ENTRY),
            "id, created_at, action, actor_kind, actor_id, actor_label, "
            "object_type, object_id, changes (JSON), ip, user_agent.",
        ),
    )
)(api.AuditLogApi)
