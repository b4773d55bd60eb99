"""The audit log's CSV columns (config.exports), over the API's output."""

import json

from config.exports import CsvExport, output_columns

from .serializers import audit_entry_output


def audit_csv_row(entry) -> dict:
    """The API's output, the actor flat and the changes as JSON text."""
    out = audit_entry_output(entry)
    actor = out.pop("actor")
    return {
        **out,
        "actor_kind": actor["kind"],
        "actor_id": actor["id"],
        "actor_label": actor["label"],
        "changes": json.dumps(out["changes"], ensure_ascii=False, sort_keys=True),
    }


AUDIT_LOG = CsvExport(
    "audit_log",
    output_columns(
        "id",
        "created_at",
        "action",
        "actor_kind",
        "actor_id",
        "actor_label",
        "object_type",
        "object_id",
        "changes",
        "ip",
        "user_agent",
    ),
)
