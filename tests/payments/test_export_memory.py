"""An export of 100,000 wallet lines streams in constant memory (issue 18, DESIGN
section 16): a real gunicorn worker serves `?format=csv` of a wallet seeded with
100,000 collections, and its resident memory (VmRSS, read from /proc while the
download runs) grows by less than 20 MB. The figure is in bench/RESULTS.md."""

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
import requests

from .. import servers
from ..conftest import make_merchant_with_key
from .commands import check_ledger
from .conftest import postgres_only
from .seeds import NET, seed_collections

LINES = 100_000
MAX_GROWTH_KB = 20 * 1024


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def worker_of(master: int) -> int:
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


@pytest.fixture
def gunicorn_worker():
    """One gunicorn process, one sync worker, on the test database: its URL and
    its worker's pid."""
    port = servers.free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": servers.test_database_url(),
    }
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    proc = subprocess.Popen(
        [gunicorn, "config.wsgi", "-b", f"127.0.0.1:{port}", "-w", "1"]
        + ["--log-level", "warning", "--timeout", "300"],
        cwd=servers.ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        servers.wait_until_serving(proc, url)
        yield url, worker_of(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=servers.READY_SECONDS)


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_an_export_of_100000_wallet_lines_streams_in_constant_memory(
    gunicorn_worker, capsys
):
    url, worker = gunicorn_worker
    shop = make_merchant_with_key()
    seed_collections(shop.merchant, LINES)
    path = f"{url}/api/v1/merchant/{shop.merchant.public_id}/wallet"
    headers = {"Authorization": f"Bearer {shop.api_key}"}
    # Warm the worker (Django's first request imports and caches what it needs),
    # with a CSV too, so the baseline holds everything but the rows.
    assert requests.get(f"{path}?limit=1", headers=headers, timeout=60).ok
    assert requests.get(f"{path}?format=json", headers=headers, timeout=60).ok
    baseline = rss_kb(worker)

    peak, received = baseline, []
    with requests.get(
        f"{path}?format=csv", headers=headers, stream=True, timeout=300
    ) as response:
        assert response.status_code == 200
        for chunk in response.iter_content(chunk_size=64 * 1024):
            received.append(chunk)
            peak = max(peak, rss_kb(worker))

    rows = list(csv.DictReader(io.StringIO(b"".join(received).decode())))
    growth = peak - baseline
    with capsys.disabled():
        print(
            f"\nwallet export: {len(rows)} rows, "
            f"{sum(len(c) for c in received) / 1e6:.1f} MB of CSV; worker RSS "
            f"{baseline / 1024:.1f} MB before, peak {peak / 1024:.1f} MB, "
            f"growth {growth / 1024:.1f} MB"
        )
    assert len(rows) == LINES
    assert sum(int(row["net"]) for row in rows) == LINES * NET
    assert growth < MAX_GROWTH_KB, f"the worker grew by {growth} kB"
    assert "clean" in check_ledger()
