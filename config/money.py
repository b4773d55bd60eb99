"""Amounts of kobo as people read them, written once (docs/decisions.md, "One
money formatter"): every page, e-mail, SMS and CSV export formats money through
`format_kobo`, and every page's amount field reads it back through
`naira_to_kobo`. Integer arithmetic only: a kobo is never rounded away.

The styles differ only in what stands before the digits and in grouping:

- `PAGE`: "₦1,234.56", the naira sign (pages are UTF-8 HTML);
- `TEXT`: "NGN 1,234.56", the currency code, for e-mail and SMS: "₦" is not in
  the GSM 7-bit alphabet, and one such character sends the whole SMS as UCS-2
  (70 characters a segment instead of 160), so a message about money would cost
  twice as much; e-mail says it the same way so that both messages of one fact
  read alike;
- `CSV`: "1234.56", no sign and no thousands separator, so a spreadsheet reads
  a number.

A negative amount carries its minus first: "-₦1,170.00", "-NGN 1,170.00",
"-1170.00".
"""

import re
from decimal import Decimal
from typing import Literal

Style = Literal["page", "text", "csv"]
PAGE: Style = "page"
TEXT: Style = "text"
CSV: Style = "csv"

CURRENCY_SIGNS = {"NGN": "₦"}


def format_kobo(amount: int, currency: str = "NGN", *, style: Style = PAGE) -> str:
    """12345678 -> "₦123,456.78" (`PAGE`), "NGN 123,456.78" (`TEXT`) or
    "123456.78" (`CSV`). A fractional number of kobo is refused, not rounded."""
    if isinstance(amount, bool):
        raise TypeError("an amount of kobo is an integer, not a bool")
    kobo_total = int(amount)
    if isinstance(amount, float | Decimal) and kobo_total != amount:
        raise ValueError(f"{amount!r} is not a whole number of kobo")
    sign = "-" if kobo_total < 0 else ""
    whole, kobo = divmod(abs(kobo_total), 100)
    if style == CSV:
        return f"{sign}{whole}.{kobo:02d}"
    if style == PAGE:
        prefix = CURRENCY_SIGNS.get(currency, f"{currency} ")
    elif style == TEXT:
        prefix = f"{currency} "
    else:
        raise ValueError(f"unknown money style {style!r}")
    return f"{sign}{prefix}{whole:,}.{kobo:02d}"


def naira(amount, currency: str = "NGN") -> str:
    """The `naira` template filter (`{% load money %}` in installments and
    checkout, `{% load kobo %}` in payments): nothing for no amount."""
    if amount is None or amount == "":
        return ""
    return format_kobo(amount, currency)


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
