"""Text messages (SMS) through the backend `SMS_URL` names, the way Django sends
e-mail through `EMAIL_BACKEND`: any app calls `sms_send(to=..., body=...)`.

    console://                  print each message to stdout (the default)
    locmem://                   keep them in `config.sms.outbox` (tests)
    termii://<api key>@<sender> Termii's SMS API (termii.py; ?channel=, ?host=)

Numbers are E.164 (`+2348031234567`). A backend raises `SmsError` when a
message was not accepted, or may not have been; callers record it and never
retry blindly (a timeout may still have delivered the message). `SmsNotSent`,
a kind of `SmsError`, says the provider was never reached: that one may be
sent again.
"""

from urllib.parse import parse_qs, unquote, urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from .base import SmsBackend, SmsError, SmsMessage, SmsNotSent
from .console import ConsoleBackend
from .locmem import LocmemBackend, outbox
from .termii import TermiiBackend

__all__ = [
    "SmsBackend",
    "SmsError",
    "SmsMessage",
    "SmsNotSent",
    "backend_from_url",
    "outbox",
    "sms_backend",
    "sms_send",
]

SCHEMES = ("console", "locmem", "termii")


def backend_from_url(url: str) -> SmsBackend:
    parts = urlsplit(url)
    if parts.scheme == "console":
        return ConsoleBackend()
    if parts.scheme == "locmem":
        return LocmemBackend()
    if parts.scheme == "termii":
        # Not `parts.hostname`: it lower-cases, and sender ids keep their case.
        api_key, _, sender_id = parts.netloc.rpartition("@")
        if not api_key or not sender_id:
            raise ImproperlyConfigured(
                "SMS_URL for Termii is termii://<api key>@<sender id>."
            )
        options = {name: values[-1] for name, values in parse_qs(parts.query).items()}
        return TermiiBackend(
            api_key=unquote(api_key),
            sender_id=unquote(sender_id),
            channel=options.get("channel", TermiiBackend.DEFAULT_CHANNEL),
            host=options.get("host", TermiiBackend.DEFAULT_HOST),
        )
    raise ImproperlyConfigured(
        f"SMS_URL must start with one of {', '.join(s + '://' for s in SCHEMES)}."
    )


def sms_backend() -> SmsBackend:
    """The backend of the current `SMS_URL` (read at call time, so tests and
    `override_settings` can change it)."""
    return backend_from_url(settings.SMS_URL)


def sms_send(*, to: str, body: str) -> str:
    """Send one message; the provider's message id ("" when it has none)."""
    return sms_backend().send(SmsMessage(to=to, body=body))
