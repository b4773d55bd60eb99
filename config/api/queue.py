"""Queueing a task once the current transaction commits (DESIGN section 13).

With REDIS_URL the broker can be down while the database is up (the ORM broker
could not be). Work that has committed must then still answer as committed: a
failed enqueue is logged, never raised, and every task queued this way has a
sweeper schedule that finds the rows whose task never ran.
"""

from django.db import transaction
from django_q.tasks import async_task


def enqueue_on_commit(func: str, *args, **options) -> None:
    """`async_task(func, *args, **options)` after the commit (at once outside a
    transaction); a broker that is down is logged by Django, not raised."""

    def enqueue() -> None:
        async_task(func, *args, **options)

    # Django names a failing robust callback by its __qualname__ (a
    # functools.partial has none: the AttributeError then replaced the broker's
    # error and reached the caller after all).
    enqueue.__qualname__ = f"async_task({func!r})"
    transaction.on_commit(enqueue, robust=True)
