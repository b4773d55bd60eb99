"""Prints each message, like Django's console e-mail backend."""

import sys
import threading

from django.utils import timezone

from .base import SmsBackend, SmsMessage

_lock = threading.Lock()


class ConsoleBackend(SmsBackend):
    def __init__(self, stream=None):
        self.stream = stream

    def send(self, message: SmsMessage) -> str:
        # sys.stdout read at send time, so a redirected stdout (capsys) gets it.
        stream = self.stream or sys.stdout
        text = (
            f"SMS to: {message.to}\n"
            f"Date: {timezone.now():%a, %d %b %Y %H:%M:%S %z}\n\n"
            f"{message.body}\n{'-' * 79}\n"
        )
        with _lock:
            stream.write(text)
            stream.flush()
        return ""
