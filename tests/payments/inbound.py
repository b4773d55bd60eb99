"""The inbound limits' figures and the minute they are tested at."""

from datetime import UTC, datetime

# The documented bound (docs/operations.md, "Inbound processor requests").
REFUSED_RECORDS_PER_MINUTE = 5


# The start of a minute: every request of a test falls in one rate window.
MINUTE = datetime(2031, 3, 4, 10, 20, 0, tzinfo=UTC)
