"""Fixed-window counters shared by every web process (DESIGN section 4).

The counter is bumped with one atomic statement: Redis `INCR` when REDIS_URL is set,
otherwise `INSERT ... ON CONFLICT DO UPDATE ... RETURNING` on the database (the same
SQL on PostgreSQL and SQLite). DRF's cache throttle reads, then writes, and lets
extra requests through under concurrency; this does not. While Redis cannot be
reached the database counts instead, so an outage of Redis neither fails every
request nor lifts the limits.
"""

import logging
import math
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone
from redis.exceptions import RedisError

from .models import RateCounter

logger = logging.getLogger(__name__)

# A command to Redis that takes longer than this counts in the database instead.
# Set here rather than left to redis-py, whose default changed between versions
# (none before 8, then 5 s): each request waits at most this long on a hung Redis.
REDIS_TIMEOUT_SECONDS = 2.0


@dataclass(frozen=True)
class Window:
    count: int
    limit: int
    reset_at: datetime

    @property
    def exceeded(self) -> bool:
        return self.count > self.limit

    @property
    def remaining(self) -> int:
        return max(0, self.limit - self.count)

    def seconds_to_reset(self, now: datetime | None = None) -> int:
        now = now or timezone.now()
        return max(1, math.ceil((self.reset_at - now).total_seconds()))

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(int(self.reset_at.timestamp())),
        }


def _window_bounds(seconds: int, now: datetime) -> tuple[int, datetime]:
    epoch = int(now.timestamp())
    start = epoch - epoch % seconds
    return start, datetime.fromtimestamp(start + seconds, tz=UTC)


_redis_client = None
_redis_client_lock = threading.Lock()


def _redis():
    """The process's one client (thread-safe; its pool holds the connections).

    Made once under a lock: when the first requests of a threaded web process
    raced to make it, the clients that lost were collected, and a collected
    client closes its pool, with the connection a thread was still using in it
    (`Bad file descriptor`, a 500)."""
    global _redis_client
    with _redis_client_lock:
        if _redis_client is None:
            import redis

            _redis_client = redis.Redis.from_url(
                settings.REDIS_URL,
                socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
                socket_timeout=REDIS_TIMEOUT_SECONDS,
            )
        return _redis_client


_warned_at = -math.inf


def _redis_unreachable(error: RedisError) -> None:
    """Logged at most once a minute per process, not once a request."""
    global _warned_at
    if time.monotonic() - _warned_at >= 60:
        _warned_at = time.monotonic()
        logger.error("Redis unreachable, rate limits count in the database: %s", error)


def _bump(key: str, expires_at: datetime, by: int) -> int:
    if settings.REDIS_URL:
        # A lifetime relative to now, not EXPIREAT: Redis would read this
        # machine's end of window on its own clock, and a web machine running
        # behind it would see its counter vanish in the last seconds of each
        # window, letting every request there through.
        lifetime = (expires_at - timezone.now()).total_seconds()
        pipe = _redis().pipeline()
        pipe.incrby(key, by)
        pipe.expire(key, max(1, math.ceil(lifetime)) + 1)
        try:
            return int(pipe.execute()[0])
        except RedisError as error:
            _redis_unreachable(error)
    return _bump_in_database(key, expires_at, by)


def _bump_in_database(key: str, expires_at: datetime, by: int) -> int:
    table = RateCounter._meta.db_table
    sql = (
        f"INSERT INTO {table} (key, count, expires_at) VALUES (%s, %s, %s) "  # noqa: S608
        f"ON CONFLICT (key) DO UPDATE SET count = {table}.count + EXCLUDED.count "
        "RETURNING count"
    )
    # One statement, atomic on its own (autocommit outside a caller's transaction).
    # On PostgreSQL the table is UNLOGGED (migration 0002): the bump writes no WAL
    # and its commit does not wait for a flush; a crash resets the windows.
    with connection.cursor() as cursor:
        cursor.execute(sql, [key, by, expires_at])
        return int(cursor.fetchone()[0])


def _read(key: str) -> int:
    if settings.REDIS_URL:
        try:
            value = _redis().get(key)
        except RedisError as error:
            _redis_unreachable(error)
        else:
            return int(value) if value else 0
    row = RateCounter.objects.filter(key=key).values_list("count", flat=True).first()
    return row or 0


def hit(name: str, *, limit: int, window_seconds: int = 60) -> Window:
    """Count one event against `name` in the current fixed window."""
    start, reset_at = _window_bounds(window_seconds, timezone.now())
    count = _bump(f"rl:{name}:{start}", reset_at, 1)
    return Window(count=count, limit=limit, reset_at=reset_at)


def peek(name: str, *, limit: int, window_seconds: int = 60) -> Window:
    """The current window's count, without counting."""
    start, reset_at = _window_bounds(window_seconds, timezone.now())
    return Window(count=_read(f"rl:{name}:{start}"), limit=limit, reset_at=reset_at)


def purge_expired() -> int:
    """Drop database counters of windows that have ended (Redis expires its own;
    with REDIS_URL the database holds those counted while Redis was unreachable)."""
    cutoff = timezone.now() - timedelta(seconds=1)
    deleted, _ = RateCounter.objects.filter(expires_at__lt=cutoff).delete()
    return deleted
