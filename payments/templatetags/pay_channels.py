"""`{% load pay_channels %}`: how a payment came in (`PayChannel`, the `channel`
of every payment event), as people read it on a page."""

from django import template

from payments.gateway.processors.base import PayChannel

register = template.Library()

LABELS = {
    PayChannel.CARD: "Card",
    PayChannel.BANK_ACCOUNT: "Bank account",
    PayChannel.BANK_TRANSFER: "Bank transfer",
    PayChannel.USSD: "USSD",
}


@register.filter
def pay_channel(channel: str) -> str:
    """ "bank_transfer" as "Bank transfer" (an unknown value as it is)."""
    return LABELS.get(channel, channel)
