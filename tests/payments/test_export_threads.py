"""A streamed CSV export holds one thread of a web process, not the whole process
(issue 25 item 13): gunicorn as deployed (config/gunicorn.py: gthread), one worker,
serves a large wallet export to a client that stops reading after the first bytes
(a phone on a slow line); meanwhile /healthz is answered, while the export is
provably still being sent, and the export then completes with every row.

With the former `sync` worker the export held the worker until it was written:
/healthz waited until gunicorn's worker timeout killed the worker (and the export
with it)."""

import csv
import io
import socket
from pathlib import Path

import pytest
import requests

from .. import servers
from ..conftest import make_merchant_with_key
from .conftest import postgres_only
from .seeds import NET, seed_collections

LINES = 60_000  # about 10 MB of CSV


def kernel_buffer_ceiling() -> int:
    """The most a socket can hold unsent (tcp_wmem's maximum) plus the client's
    small receive buffer: anything beyond it was still in the server's hands."""
    sender_max = int(Path("/proc/sys/net/ipv4/tcp_wmem").read_text().split()[2])
    return sender_max + 64 * 1024


def start_download(url: str, path: str, api_key: str) -> tuple[socket.socket, bytes]:
    """An HTTP/1.0 GET (no chunking: the body ends when the server closes) on a
    socket with a small receive buffer; returns it with the first bytes read."""
    host, port = url.removeprefix("http://").split(":")
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.settimeout(servers.READY_SECONDS)
    client.connect((host, int(port)))
    client.sendall(
        f"GET {path} HTTP/1.0\r\nHost: {host}\r\n"
        f"Authorization: Bearer {api_key}\r\n\r\n".encode()
    )
    return client, client.recv(4096)


def read_to_end(client: socket.socket) -> bytes:
    received = []
    while chunk := client.recv(256 * 1024):
        received.append(chunk)
    return b"".join(received)


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_healthz_answers_while_a_large_export_is_still_streaming():
    shop = make_merchant_with_key()
    seed_collections(shop.merchant, LINES)
    export = f"/api/v1/merchant/{shop.merchant.public_id}/wallet?format=csv"

    # One worker, threads as config/gunicorn.py sets them.
    with servers.gunicorns(1, threads=None) as [server]:
        client, first = start_download(server.url, export, shop.api_key)
        try:
            assert first.startswith(b"HTTP/1.0 200") or first.startswith(
                b"HTTP/1.1 200"
            ), first[:200]
            health = requests.get(
                f"{server.url}/healthz", timeout=servers.READY_SECONDS
            )
            rest = read_to_end(client)
        finally:
            client.close()

    assert health.status_code == 200, health.text
    # What was left to read once /healthz had answered could not all have been
    # in the kernel's buffers: the export's thread was still writing it.
    assert len(rest) > kernel_buffer_ceiling(), len(rest)
    body = (first + rest).split(b"\r\n\r\n", 1)[1]
    rows = list(csv.DictReader(io.StringIO(body.decode())))
    assert len(rows) == LINES
    assert sum(int(row["net"]) for row in rows) == LINES * NET
