"""`{% load kobo %}`: amounts in kobo shown to people, for the pages of
`payments` (which cannot load `installments`' `money` library: payments sits
below installments)."""

from django import template

from config.api.formats import format_kobo

register = template.Library()


@register.filter
def naira(amount, currency: str = "NGN") -> str:
    if amount is None or amount == "":
        return ""
    return format_kobo(amount, currency)
