"""The sandbox's today: the Lagos date the simulator judges a charge by.

Normally the real date. While the service's sandbox clock runs a plan's life
forward (`POST /api/v1/sandbox/payment-plans/<id>/advance`), each day's charges
are judged as of that day, so a card that expires this month declines
`card_expired` on a due date next month, as it would then. A context variable:
it holds for the calls made in the thread (and context) that set it, never for
another request's.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date

from django.utils import timezone

_as_of: ContextVar[date | None] = ContextVar("sandbox_as_of", default=None)


def sandbox_today() -> date:
    """The simulated date while a clock runs, otherwise today in Lagos."""
    return _as_of.get() or timezone.localdate()


@contextmanager
def sandbox_as_of(day: date) -> Iterator[None]:
    """The sandbox judges the charges made inside as of `day`."""
    token = _as_of.set(day)
    try:
        yield
    finally:
        _as_of.reset(token)
