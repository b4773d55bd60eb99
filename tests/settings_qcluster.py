"""Settings for a real `qcluster` started by a test: the test settings with the
queue asynchronous (tests.settings runs tasks inline). A test may give it more
workers (TEST_Q_WORKERS) and e-mail through a folder the test reads
(TEST_MAIL_DROP_DIR: tests/mail_drop.py)."""

import os

from tests.settings import *  # noqa: F403
from tests.settings import Q_CLUSTER

Q_CLUSTER = {
    **Q_CLUSTER,
    "sync": False,
    "workers": int(os.environ.get("TEST_Q_WORKERS", "1")),
    "poll": 0.1,
}
if os.environ.get("TEST_MAIL_DROP_DIR"):
    EMAIL_BACKEND = "tests.mail_drop.DropBackend"
