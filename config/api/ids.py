"""Public identifiers: a prefix plus an opaque random string (DESIGN section 3)."""

import re
import secrets

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def random_token(bits: int = 128) -> str:
    """Base62 text carrying `bits` bits from the system's CSPRNG."""
    number = secrets.randbits(bits)
    length = -(-bits * 1000 // 5954)  # ceil(bits / log2(62))
    chars = []
    for _ in range(length):
        number, rest = divmod(number, 62)
        chars.append(_ALPHABET[rest])
    return "".join(chars)


def new_public_id(prefix: str, bits: int = 128) -> str:
    """`mer_…`, `cus_…`, `pl_…`: never sequential, at least 96 random bits."""
    if bits < 96:
        raise ValueError("public ids carry at least 96 random bits")
    return f"{prefix}_{random_token(bits)}"


_PUBLIC_ID = re.compile(r"^[a-z]{2,4}_[0-9A-Za-z]{1,64}$")


def looks_like_public_id(value: str, prefix: str) -> bool:
    """Cheap shape check before a lookup: ids from URLs may hold any bytes (a NUL
    byte makes PostgreSQL refuse the query outright)."""
    return bool(_PUBLIC_ID.match(value)) and value.startswith(f"{prefix}_")


def row_by_public_id(rows, public_id: str, prefix: str):
    """The row of `rows` (a queryset) with this public id, or None; an id not
    shaped like one of `prefix` matches nothing without reaching the database."""
    if not looks_like_public_id(public_id, prefix):
        return None
    return rows.filter(public_id=public_id).first()
