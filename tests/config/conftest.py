"""Fixtures shared by the config tests."""

import pytest
from django.db import connections
from django.db.backends.postgresql.base import DatabaseWrapper

from config.api import unavailable
from tests import servers


class Outage:
    """Points the default connection at a PostgreSQL port with nothing listening:
    every connection attempt is refused (a real refusal, by the kernel)."""

    def __init__(self):
        settings = connections.configure_settings(
            {
                "default": {
                    "ENGINE": "django.db.backends.postgresql",
                    "NAME": "installments",
                    "USER": "postgres",
                    "HOST": "127.0.0.1",
                    "PORT": servers.free_port(),
                }
            }
        )["default"]
        self.working = connections["default"]
        self.refusing = DatabaseWrapper(settings, "default")

    def start(self) -> None:
        connections["default"] = self.refusing

    def end(self) -> None:
        connections["default"] = self.working


@pytest.fixture
def database_refusing():
    """An outage that begins with the test (in this process, none is under way:
    no other test's outage is still remembered) and ends with it."""
    unavailable.outage.ended()
    outage = Outage()
    outage.start()
    yield outage
    outage.end()
    outage.refusing.close()
    unavailable.outage.ended()
