"""Merchants whose webhook URL points at the real HTTP receiver on 127.0.0.1
(the `receiver` fixture of tests/conftest.py, tests/receivers.py)."""

import socket

import pytest

from merchants.models import Merchant
from tests.factories import MerchantFactory

SECRET = "whsec_test_0123456789abcdef"


def make_subscriber(url: str, **fields) -> Merchant:
    return MerchantFactory(
        status=Merchant.Status.ACTIVE,
        api_access_enabled=True,
        webhook_url=url,
        webhook_secret=SECRET,
        **fields,
    )


@pytest.fixture
def subscriber(db, receiver):
    """An active merchant whose webhook URL is the local receiver."""
    return make_subscriber(receiver.url)


@pytest.fixture
def connect_attempts(monkeypatch) -> list[str]:
    """The addresses outbound sockets try to connect to, each attempt refused
    instead of made: a guard that lets an address through shows here, and
    nothing reaches the network."""
    attempts: list[str] = []

    def refuse(sock, address):
        attempts.append(address[0])
        raise ConnectionRefusedError(111, "Connection refused (by the test)")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    return attempts


@pytest.fixture
def resolve(monkeypatch):
    """`resolve(name, address)`: the name resolves to the address where the
    transport resolves (socket.getaddrinfo), without DNS."""
    names: dict[str, str] = {}
    real = socket.getaddrinfo

    def getaddrinfo(host, port, *args, **kwargs):
        if host not in names:
            return real(host, port, *args, **kwargs)
        address = names[host]
        if ":" in address:
            return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0))]
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return names.__setitem__
