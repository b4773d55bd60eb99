"""Session-level advisory locks: one caller at a time for a named thing, held
across several transactions (which a row lock cannot be, since each of them
commits). PostgreSQL only; on SQLite, whose one writer already serialises every
write, the lock is always granted."""

import zlib
from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection


@contextmanager
def advisory_lock_try(namespace: str, key: int) -> Iterator[bool]:
    """Yields True when this connection took the lock of (`namespace`, `key`),
    False when another session holds it; released on leaving."""
    if connection.vendor != "postgresql":
        yield True
        return
    # pg_try_advisory_lock(int4, int4): the namespace's CRC and the key, both
    # folded into the signed 32-bit range.
    ids = (zlib.crc32(namespace.encode()) - 2**31, key % 2**31)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", ids)
        taken = cursor.fetchone()[0]
    try:
        yield taken
    finally:
        if taken:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", ids)
