"""The request id of the request being served, for responses and log lines."""

import contextvars
import logging
import re
import uuid

_current = contextvars.ContextVar("request_id", default="-")
_ACCEPTABLE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")


def request_id_from_header(value: str | None) -> str:
    """Echo a caller's id when it is safe to log; otherwise make a new one."""
    if value and _ACCEPTABLE.match(value):
        return value
    return uuid.uuid4().hex


def set_current(request_id: str) -> contextvars.Token:
    return _current.set(request_id)


def reset_current(token: contextvars.Token) -> None:
    _current.reset(token)


def current() -> str:
    return _current.get()


class RequestIdLogFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = current()
        return True
