"""What every SMS backend is: `send(message) -> provider message id`."""

from abc import ABC, abstractmethod
from dataclasses import dataclass


@dataclass(frozen=True)
class SmsMessage:
    to: str  # E.164, e.g. +2348031234567
    body: str


class SmsError(Exception):
    """The message was refused, or its fate is unknown (a timeout); `str()` is a
    readable reason, free of credentials."""


class SmsNotSent(SmsError):
    """The provider was never reached (no connection): the message was
    certainly not sent, so sending it again later cannot send it twice."""


class SmsBackend(ABC):
    @abstractmethod
    def send(self, message: SmsMessage) -> str:
        """Send one message; the provider's id of it. SmsError when refused or
        when its fate is unknown."""
