"""An e-mail "provider" that processes share: each message accepted is one file
in `TEST_MAIL_DROP_DIR`, written after `TEST_MAIL_DROP_DELAY` seconds (the
provider's latency). A real task cluster started by a test sends through it
(tests/settings_qcluster.py), and the test counts the copies of each message by
its Message-ID header."""

import os
import re
import time
import uuid
from collections import Counter
from pathlib import Path

from django.core.mail.backends.base import BaseEmailBackend

MESSAGE_ID = re.compile(rb"^Message-ID: (<[^>]+>)", re.MULTILINE)


class DropBackend(BaseEmailBackend):
    def send_messages(self, email_messages):
        folder = Path(os.environ["TEST_MAIL_DROP_DIR"])
        delay = float(os.environ.get("TEST_MAIL_DROP_DELAY", "0"))
        for message in email_messages:
            time.sleep(delay)  # the provider at work, not a clock rule
            data = message.message().as_bytes()
            # Written whole, then renamed: a reader never sees half a message.
            name = uuid.uuid4().hex
            (folder / f"{name}.tmp").write_bytes(data)
            (folder / f"{name}.tmp").rename(folder / f"{name}.eml")
        return len(email_messages)


def copies(folder: Path) -> Counter:
    """How many copies of each Message-ID the provider accepted."""
    found = Counter()
    for path in folder.glob("*.eml"):
        match = MESSAGE_ID.search(path.read_bytes())
        found[match.group(1).decode() if match else None] += 1
    return found
