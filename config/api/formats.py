"""How values look in JSON: timestamps are UTC ISO 8601 ending in `Z` (DESIGN §3).
Amounts of kobo as people read them: `config.money`."""

from datetime import UTC, date, datetime


def iso_utc(value: datetime | None) -> str | None:
    if value is None:
        return None
    return (
        value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def iso_date(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None
