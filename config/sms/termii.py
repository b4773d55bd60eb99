"""Termii (termii.com), an SMS provider with direct routes to Nigerian networks.

One call: `POST https://<host>/api/sms/send` with the JSON body

    {"api_key": "...", "to": "2348031234567", "from": "<sender id>",
     "sms": "<text>", "type": "plain", "channel": "dnd"}

answered `200 {"message_id": "...", "message": "Successfully Sent",
"balance": ..., "user": "..."}`; a refusal is a 4xx with `{"message": "..."}`.
`to` is the international number without "+". The `dnd` channel is Termii's
transactional route, which also reaches numbers on Do-Not-Disturb (reminders
and receipts are transactional); `generic` is the promotional route. Termii
gives each account a base URL on its dashboard: `?host=` overrides the default.

The POST is sent once, with connect and read timeouts, never retried here: after
a timeout the message may have been sent, so the caller records it as failed
rather than sending it again. Only when no connection was made (refused, no
route, a connect timeout) is the message certainly not sent: `SmsNotSent`.

Termii's send API takes no idempotency key: a message sent again after a lost
answer reaches the phone twice, so nothing here resends one.
"""

import logging

import requests
from urllib3.exceptions import NewConnectionError

from .base import SmsBackend, SmsError, SmsMessage, SmsNotSent

logger = logging.getLogger(__name__)


class TermiiBackend(SmsBackend):
    DEFAULT_HOST = "api.ng.termii.com"
    DEFAULT_CHANNEL = "dnd"
    CHANNELS = ("dnd", "generic")
    timeout = (5, 15)  # connect, read (seconds)

    def __init__(
        self,
        *,
        api_key: str,
        sender_id: str,
        channel: str = DEFAULT_CHANNEL,
        host: str = DEFAULT_HOST,
        session: requests.Session | None = None,
    ):
        if channel not in self.CHANNELS:
            raise ValueError(f"Termii channel must be one of {self.CHANNELS}")
        self.api_key = api_key
        self.sender_id = sender_id
        self.channel = channel
        self.url = f"https://{host}/api/sms/send"
        self._session = session or requests.Session()

    def send(self, message: SmsMessage) -> str:
        payload = {
            "api_key": self.api_key,
            "to": message.to.removeprefix("+"),
            "from": self.sender_id,
            "sms": message.body,
            "type": "plain",
            "channel": self.channel,
        }
        try:
            response = self._session.post(self.url, json=payload, timeout=self.timeout)
        except requests.ConnectTimeout:
            raise SmsNotSent(
                f"Termii could not be reached within {self.timeout[0]} s."
            ) from None
        except requests.Timeout:
            raise SmsError(
                f"Termii did not answer within {self.timeout[1]} s; the message "
                "may or may not have been sent."
            ) from None
        except requests.RequestException as error:
            unsent = isinstance(error, requests.ConnectionError) and (
                _never_connected(error)
            )
            raise (SmsNotSent if unsent else SmsError)(
                f"Termii could not be reached ({type(error).__name__})."
            ) from error
        return self._message_id(response)

    @staticmethod
    def _message_id(response: requests.Response) -> str:
        try:
            body = response.json()
        except ValueError:
            body = {}
        said = str(body.get("message", ""))[:200] if isinstance(body, dict) else ""
        if response.status_code >= 400:
            logger.warning("Termii refused an SMS: %s %s", response.status_code, said)
            raise SmsError(
                f"Termii refused the message ({response.status_code}: {said})"
            )
        message_id = body.get("message_id") if isinstance(body, dict) else None
        if not message_id:
            raise SmsError(f"Termii answered without a message id ({said or 'empty'})")
        return str(message_id)


def _never_connected(error: requests.ConnectionError) -> bool:
    """Whether the connection was never made (refused, no route, no name), as
    urllib3 says under requests' ConnectionError; a connection that broke after
    the request went out may have sent it."""
    reason = getattr(error.args[0] if error.args else None, "reason", None)
    return isinstance(reason, NewConnectionError)
