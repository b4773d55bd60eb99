"""How values look: in JSON, timestamps are UTC ISO 8601 ending in `Z` (DESIGN §3);
in pages, amounts of kobo are naira with the sign and two decimals."""

import re
from datetime import UTC, date, datetime


def iso_utc(value: datetime | None) -> str | None:
    if value is None:
        return None
    return (
        value.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    )


def iso_date(value: date | None) -> str | None:
    return value.isoformat() if value is not None else None


CURRENCY_SIGNS = {"NGN": "₦"}


def format_kobo(amount: int, currency: str = "NGN") -> str:
    """How an amount looks to people in pages: 12345678 -> "₦123,456.78"
    (integer arithmetic, no float rounding)."""
    sign = "-" if amount < 0 else ""
    whole, kobo = divmod(abs(int(amount)), 100)
    symbol = CURRENCY_SIGNS.get(currency, f"{currency} ")
    return f"{sign}{symbol}{whole:,}.{kobo:02d}"


# Naira as people type it: digits with optional thousands commas, then at most
# two decimals (a leading "₦" is fine).
NAIRA = re.compile(
    r"(?P<whole>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<kobo>\d{1,2}))?", re.ASCII
)


def naira_to_kobo(text: str) -> int | None:
    """ "25,000.5" -> 2500050 (integer arithmetic); None when `text` is not an
    amount of naira. The inverse of `format_kobo` for the pages' amount fields."""
    match = NAIRA.fullmatch(text.strip().removeprefix("₦").strip())
    if match is None:
        return None
    whole = int(match["whole"].replace(",", ""))
    kobo = int((match["kobo"] or "0").ljust(2, "0"))
    return whole * 100 + kobo
