"""Scheduled jobs of customer accounts (declared in payments/apps.py)."""

from .privacy import sign_ins_purge


def purge_sign_ins() -> int:
    return sign_ins_purge()
