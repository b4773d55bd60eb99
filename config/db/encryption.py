"""Encryption at rest for secrets the service must read back (webhook secrets).

FIELD_ENCRYPTION_KEY may hold several comma-separated keys: the first encrypts,
every one decrypts, so a key can be rotated without losing existing values
(add the new key in front, re-save, then drop the old one).
"""

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.db import models


def _fernet() -> MultiFernet:
    keys = [
        key.strip() for key in settings.FIELD_ENCRYPTION_KEY.split(",") if key.strip()
    ]
    return MultiFernet(
        [
            Fernet(base64.urlsafe_b64encode(hashlib.sha256(key.encode()).digest()))
            for key in keys
        ]
    )


def encrypt(plaintext: str) -> str:
    return _fernet().encrypt(plaintext.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        raise ValueError(
            "value cannot be decrypted with FIELD_ENCRYPTION_KEY"
        ) from None


class EncryptedTextField(models.TextField):
    """Stores Fernet ciphertext; Python code sees the plaintext. Empty stays empty."""

    def from_db_value(self, value, expression, connection):
        if not value:
            return value
        return decrypt(value)

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        if not value:
            return value
        return encrypt(value)
