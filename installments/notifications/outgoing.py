"""What every message is made of: `Outgoing` (one message on one channel, as
`sending.py` records it), the builder of a customer's e-mail and SMS of one
fact (`both`), the links they carry and how they write dates and methods."""

import re
from dataclasses import dataclass
from datetime import date, datetime

from django.conf import settings

from .models import Message

Kind = Message.Kind
Channel = Message.Channel


@dataclass(frozen=True)
class Outgoing:
    kind: str
    subject: str  # what it is about (Message.subject)
    channel: str
    customer_pk: int | None  # None: to the merchant of `merchant_pk`
    recipient: str
    title: str
    body: str
    merchant_pk: int | None = None
    # The plan whose pay link replaces PAY_LINK in `body` (a link made for
    # this message), or the link itself.
    pay_plan_pk: int | None = None
    pay_link_pk: int | None = None
    # The agreement whose PDF the e-mail attaches (Message.agreement).
    agreement_pk: int | None = None

    @property
    def source(self) -> str:
        """The message, as the pay link made for it names it."""
        return f"{self.kind}:{self.subject}"


# Where the message's pay link goes (replaced when it is sent).
PAY_LINK = "{pay_link}"


def plan_url(plan) -> str:
    return f"{settings.CONSUMER_URL}/account/plans/{plan.public_id}/"


def both(
    *, kind, subject, customer, title, email, sms, pay_plan_pk=None, pay_link_pk=None
) -> list[Outgoing]:
    link = {"pay_plan_pk": pay_plan_pk, "pay_link_pk": pay_link_pk}
    made = [
        Outgoing(
            kind,
            subject,
            Channel.EMAIL,
            customer.pk,
            customer.email,
            title,
            email,
            **link,
        )
    ]
    if customer.sms_phone:
        made.append(
            Outgoing(
                kind,
                subject,
                Channel.SMS,
                customer.pk,
                customer.sms_phone,
                "",
                sms,
                **link,
            )
        )
    return made


def plain(label: str) -> str:
    """ "Visa •••• 4081" as "Visa ending 4081": the bullets are not in the GSM
    alphabet, and one such character makes an SMS cost twice as much."""
    return re.sub(r"\s*•+\s*", " ending ", label).strip()


def long_day(day: date | datetime) -> str:
    return f"{day:%A %d %B %Y}"


def short_day(day: date | datetime) -> str:
    return f"{day:%d %b %Y}"


def account_url() -> str:
    """Where a customer adds a card or bank account."""
    return f"{settings.CONSUMER_URL}/account/"
