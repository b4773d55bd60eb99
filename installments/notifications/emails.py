"""E-mails about collections: to the customer when an installment could not be
collected or a plan defaulted, to the merchant when a plan defaulted.

Builders return plain (subject, body, recipient) tuples, so a batch's e-mails
travel to the task that sends them (after the commit) as data. Reminders and
receipts (notifications/) are built there and sent one by one through
`one_by_one`, which says what became of each.
"""

import logging
import smtplib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.core.mail import EmailMessage, get_connection, send_mass_mail
from django.utils import timezone

from config.money import TEXT, format_kobo
from config.text import one_line
from payments.gateway.declines import decline_of

Message = tuple[str, str, str]


def naira(kobo: int) -> str:
    """An amount as every e-mail and SMS writes it (`config.money.TEXT`)."""
    return format_kobo(kobo, style=TEXT)


# What a merchant or a customer typed goes into every e-mail and SMS through
# these, never as it was stored: one line, cut to a length (config.text), so
# that a name holding line breaks and a message of its own (rows from before
# names were checked) reads as a name inside our sentence.
SHOP_NAME_LIMIT = 60
ORDER_REFERENCE_LIMIT = 100
FIRST_NAME_LIMIT = 50
REASON_LIMIT = 100  # a processor's words


def shop(merchant) -> str:
    """The merchant's business name, as customers read it in our messages."""
    return one_line(merchant.business_name, SHOP_NAME_LIMIT)


def order(reference: str) -> str:
    """A merchant's order reference inside our sentence."""
    return one_line(reference, ORDER_REFERENCE_LIMIT)


def hello(customer) -> str:
    """The first line of an e-mail to `customer`."""
    return f"Hello {one_line(customer.first_name, FIRST_NAME_LIMIT)},"


def _reason(reason: str) -> str:
    return decline_of(reason).clause


def _attempts(claim) -> str:
    return f"{claim.attempt} attempt{'s' if claim.attempt != 1 else ''}"


def installment_failed(
    claim, customer, merchant, reason: str, when: datetime
) -> Message:
    """To the customer: `claim` (a collection claim) failed and is tried again
    at `when`."""
    when, reference = timezone.localtime(when), order(claim.order_reference)
    return (
        f"We could not collect your installment for order {reference}",
        f"{hello(customer)}\n\n"
        f"We tried to collect installment {claim.sequence} of "
        f"{claim.installment_count} ({naira(claim.amount)}) for your order "
        f"{reference} from {shop(merchant)}, but "
        f"{_reason(reason)}.\n\n"
        f"We will try again on {when:%A %d %B %Y} at {when:%H:%M} (Lagos time). "
        "Please make sure the payment method has enough funds, or add another one "
        f"at {settings.BASE_URL}/account/ before then.\n",
        customer.email,
    )


def partially_collected(
    claim, customer, merchant, *, collected: int, when: datetime
) -> Message:
    """To the customer: the last retry of `claim` could not take the whole
    installment, a partial debit took `collected`, the rest is tried at `when`
    (DESIGN section 15)."""
    when = timezone.localtime(when)
    rest, reference = claim.amount - collected, order(claim.order_reference)
    return (
        f"We collected part of your installment for order {reference}",
        f"{hello(customer)}\n\n"
        f"We could not collect all of installment {claim.sequence} of "
        f"{claim.installment_count} ({naira(claim.amount)} still owed) for your "
        f"order {reference} from {shop(merchant)}, so we "
        f"collected {naira(collected)} of it.\n\n"
        f"The rest, {naira(rest)}, is the last try: we will collect it on "
        f"{when:%A %d %B %Y} at {when:%H:%M} (Lagos time). You can pay it before "
        f"then at {settings.BASE_URL}/account/; if it cannot be collected then, "
        "your plan will be in default.\n",
        customer.email,
    )


def plan_defaulted_to_customer(claim, customer, merchant, reason: str) -> Message:
    merchant_name, reference = shop(merchant), order(claim.order_reference)
    return (
        f"Your payment plan for order {reference} is in default",
        f"{hello(customer)}\n\n"
        f"Installment {claim.sequence} ({naira(claim.amount)}) of your order "
        f"{reference} from {merchant_name} could not be collected "
        f"after {_attempts(claim)}: the last time {_reason(reason)}. Your payment "
        "plan is now in default and no further installments will be collected "
        "automatically.\n\n"
        f"Please contact {merchant_name} to settle the balance.\n",
        customer.email,
    )


def plan_defaulted_to_merchant(claim, merchant, reason: str) -> Message:
    plan_id, reference = claim.plan_public_id, order(claim.order_reference)
    return (
        f"Payment plan {plan_id} (order {reference}) defaulted",
        "Hello,\n\n"
        f"Installment {claim.sequence} ({naira(claim.amount)}) of payment plan "
        f"{plan_id} for order {reference} (customer "
        f"{claim.customer_public_id}) could not be collected after {_attempts(claim)} "
        f"(last reason: {one_line(reason, REASON_LIMIT)}). The plan is now defaulted: "
        "no further installments will be collected, and your customer has been told to "
        "contact you.\n\n"
        f"The plan: {settings.BASE_URL}/dashboard/plans/{plan_id}/\n",
        merchant.email,
    )


def failed_attempt(
    *, claim, customer, merchant, reason: str, next_attempt_at: datetime | None
) -> list[Message]:
    """The e-mails of a failed collection attempt (`claim`, a collection claim):
    the retry to the customer, or the default to the customer and the merchant
    (`next_attempt_at` is None)."""
    if next_attempt_at is not None:
        return [installment_failed(claim, customer, merchant, reason, next_attempt_at)]
    return [
        plan_defaulted_to_customer(claim, customer, merchant, reason),
        plan_defaulted_to_merchant(claim, merchant, reason),
    ]


def send(messages: list[Message]) -> int:
    """Send them over one connection; returns how many went out."""
    connection = get_connection(fail_silently=False)
    return send_mass_mail(
        [
            (subject, body, settings.DEFAULT_FROM_EMAIL, [recipient])
            for subject, body, recipient in messages
        ],
        connection=connection,
    )


logger = logging.getLogger(__name__)


def _why(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"[:255]


@dataclass(frozen=True)
class Outcome:
    error: str = ""  # "" when the server took it
    # True when the server was never reached: certainly not sent.
    unsent: bool = False


def message_id(key: str) -> str:
    """The Message-ID header of the e-mail our record `key` names: the same
    on every try, so a mail system that keeps one copy per Message-ID (many
    do) shows a copy sent again after a crash once. SMTP has no idempotency
    key; this is the nearest it has."""
    domain = settings.DEFAULT_FROM_EMAIL.rpartition("@")[2] or "localhost"
    return f"<{key}@{domain}>"


@contextmanager
def one_by_one() -> Iterator[Callable[..., Outcome]]:
    """Yields `send(subject, body, recipient, key=None) -> Outcome`, sending
    over one connection opened now (`key`: our record's id, made the
    Message-ID). A server that cannot be reached fails each send as `unsent`;
    a refused recipient fails only its own."""
    connection = get_connection(fail_silently=False)
    try:
        connection.open()
    except (smtplib.SMTPException, OSError) as error:
        logger.warning("E-mail server unreachable: %s", error)
        why = _why(error)
        yield lambda *args, **kwargs: Outcome(why, unsent=True)
        return

    def send(subject: str, body: str, recipient: str, key: str | None = None):
        email = EmailMessage(
            subject,
            body,
            settings.DEFAULT_FROM_EMAIL,
            [recipient],
            connection=connection,
            headers={"Message-ID": message_id(key)} if key else None,
        )
        try:
            email.send()
        except (smtplib.SMTPException, OSError) as error:
            return Outcome(_why(error))
        return Outcome()

    try:
        yield send
    finally:
        connection.close()
