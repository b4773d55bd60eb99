"""Test settings: the real settings, plus what only a test run wants.

DATABASE_URL still decides the database: SQLite by default, PostgreSQL when it
points there (.ci/run runs the suite on both).
"""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-0123456789abcdef")

from config.settings import *  # noqa: E402, F403
from config.settings import DATABASES, Q_CLUSTER  # noqa: E402

# Fast hashing: the suite signs in hundreds of times. Production keeps Django's
# default PBKDF2 hasher (tests/config/test_settings.py checks the real settings).
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Tasks run inline unless a test starts a real qcluster (DESIGN section 13).
Q_CLUSTER = {**Q_CLUSTER, "sync": True}

EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
SMS_URL = "locmem://"  # messages kept in config.sms.outbox, like mail.outbox

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # A file, not memory, so that server processes started by tests share it.
    DATABASES["default"]["TEST"] = {
        "NAME": os.environ.get("TEST_SQLITE_NAME", "test_db.sqlite3")
    }
