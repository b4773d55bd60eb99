"""Keeps each message in `outbox`, like Django's locmem e-mail backend (tests)."""

from .base import SmsBackend, SmsMessage

outbox: list[SmsMessage] = []


class LocmemBackend(SmsBackend):
    def send(self, message: SmsMessage) -> str:
        outbox.append(message)
        return f"locmem-{len(outbox)}"
