"""`{% load money %}`: amounts in kobo shown to people."""

from django import template

register = template.Library()

CURRENCY_SIGNS = {"NGN": "₦"}


def format_kobo(amount: int, currency: str = "NGN") -> str:
    """12345678 -> "₦123,456.78": integer arithmetic, no float rounding."""
    sign = "-" if amount < 0 else ""
    whole, kobo = divmod(abs(int(amount)), 100)
    symbol = CURRENCY_SIGNS.get(currency, f"{currency} ")
    return f"{sign}{symbol}{whole:,}.{kobo:02d}"


@register.filter
def naira(amount, currency: str = "NGN") -> str:
    if amount is None or amount == "":
        return ""
    return format_kobo(amount, currency)
