"""What every message to a customer or a merchant is made of and sent with:
amounts (`naira`), what a merchant or customer typed (`shop`, `order`,
`hello`), and `one_by_one`, which sends e-mails and says what became of each.
The messages themselves are written in notifications/texts.py and recorded and
sent by notifications/ (services.py says how).
"""

import logging
import smtplib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.conf import settings
from django.core.mail import EmailMessage, get_connection

from config.money import TEXT, format_kobo
from config.text import one_line


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


def installment_of(sequence: int, count: int) -> str:
    """Which of a plan's installments a message is about: "installment 2 of 4"."""
    return f"installment {sequence} of {count}"


def hello(customer) -> str:
    """The first line of an e-mail to `customer`."""
    return f"Hello {one_line(customer.first_name, FIRST_NAME_LIMIT)},"


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
    """Yields `send(subject, body, recipient, key=None, attachment=None) ->
    Outcome`, sending over one connection opened now (`key`: our record's id,
    made the Message-ID; `attachment`: (file name, bytes, content type)). A
    server that cannot be reached fails each send as `unsent`; a refused
    recipient fails only its own."""
    connection = get_connection(fail_silently=False)
    try:
        connection.open()
    except (smtplib.SMTPException, OSError) as error:
        logger.warning("E-mail server unreachable: %s", error)
        why = _why(error)
        yield lambda *args, **kwargs: Outcome(why, unsent=True)
        return

    def send(
        subject: str,
        body: str,
        recipient: str,
        key: str | None = None,
        attachment: tuple[str, bytes, str] | None = None,
    ):
        email = EmailMessage(
            subject,
            body,
            settings.DEFAULT_FROM_EMAIL,
            [recipient],
            connection=connection,
            headers={"Message-ID": message_id(key)} if key else None,
        )
        if attachment is not None:
            email.attach(*attachment)
        try:
            email.send()
        except (smtplib.SMTPException, OSError) as error:
            return Outcome(_why(error))
        return Outcome()

    try:
        yield send
    finally:
        connection.close()
