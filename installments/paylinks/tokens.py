"""A pay link's token: an HMAC of the link's public id under the server key,
so that no table holds it. The link keeps its SHA-256 digest (as API keys are
kept) to be found by it; a recorded message names its link and gets the URL
only when it is sent (notifications/sending.py)."""

import hashlib
import re
from base64 import urlsafe_b64encode

from django.conf import settings
from django.utils.crypto import salted_hmac

SALT = "installments.paylinks.token"
LENGTH = 32  # 192 bits of the HMAC, base64url: short enough for an SMS
TOKEN_SHAPE = re.compile(rf"[A-Za-z0-9_-]{{{LENGTH}}}")


def token_of(public_id: str, *, secret: str | None = None) -> str:
    digest = salted_hmac(
        SALT, public_id, secret=secret or settings.SECRET_KEY, algorithm="sha256"
    ).digest()
    return urlsafe_b64encode(digest).decode()[:LENGTH]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def well_formed(token: str) -> bool:
    return bool(TOKEN_SHAPE.fullmatch(token))


def server_keys() -> list[str]:
    """The server key, then the previous ones a rotation keeps valid."""
    return [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]


def url_of_token(token: str) -> str:
    return f"{settings.CONSUMER_URL}/pay/{token}"
