"""Public identifiers: a prefix plus an opaque random string (DESIGN section 3)."""

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
