"""How values look: in JSON, timestamps are UTC ISO 8601 ending in `Z` (DESIGN §3);
in pages, amounts of kobo are naira with the sign and two decimals."""

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
