"""The `Idempotency-Key` header of creation endpoints (endpoint 2, plan refunds):
a UUID v4, remembered 24 hours per merchant by the endpoint's own record, whose
unique (merchant, key) constraint makes simultaneous requests create once."""

import re
import uuid
from datetime import timedelta

from .errors import InvalidIdempotencyKey

UUID_V4 = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}", re.I
)
# The same shape for the OpenAPI schema (which has no case-insensitive flag).
UUID_V4_PATTERN = (
    "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}"
    "-[0-9a-fA-F]{12}$"
)
# Answered on a replay of what the key created.
REPLAYED_HEADER = "Idempotent-Replayed"
IDEMPOTENCY_RETENTION = timedelta(hours=24)


def idempotency_key(request) -> uuid.UUID | None:
    """The `Idempotency-Key` header as a UUID v4 (canonical 8-4-4-4-12 form), None
    when absent; anything else present, even empty, is a 400."""
    raw = request.headers.get("Idempotency-Key")
    if raw is None:
        return None
    raw = raw.strip()
    if not UUID_V4.fullmatch(raw):
        raise InvalidIdempotencyKey()
    return uuid.UUID(raw)
