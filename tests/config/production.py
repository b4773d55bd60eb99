"""`manage.py` run in a subprocess with production settings."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


# Exactly what docs/operations.md tells an operator to set.
PRODUCTION_ENV = {
    "DJANGO_SETTINGS_MODULE": "config.settings",
    "DEBUG": "false",
    "SECRET_KEY": secrets.token_urlsafe(64),
    "BASE_URL": "https://pay.example.com",
    "ALLOWED_HOSTS": "pay.example.com",
}


DROPPED = ("DEBUG", "HTTPS", "SECURE_HSTS_SECONDS", "SECURE_HSTS_PRELOAD")


def manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in DROPPED}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **PRODUCTION_ENV, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
