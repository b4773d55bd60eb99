"""The calendar of the rescheduling tests and the clock moved to a Lagos time."""

from contextlib import contextmanager
from datetime import date, datetime, time

import time_machine
from django.utils import timezone

# A Monday: the plan's installments are due on 2 December 2026, 4 January 2027
# (the 2nd is a Saturday) and 2 February 2027.
TODAY = date(2026, 11, 2)


FIRST, SECOND, THIRD = date(2026, 12, 2), date(2027, 1, 4), date(2027, 2, 2)


def lagos(day: date, hour: int = 9) -> datetime:
    return timezone.make_aware(datetime.combine(day, time(hour)))


@contextmanager
def on(day: date, hour: int = 9):
    with time_machine.travel(lagos(day, hour), tick=False):
        yield
