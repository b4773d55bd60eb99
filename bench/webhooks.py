"""Webhook section: events delivered by a real `qcluster` (sync off) and the
sweeper, against one process posting the same signed bodies from a thread pool.

The receiver is a raw asyncio HTTP/1.1 server in its own process: it answers
keep-alive requests, records (event id, arrival time) and, when asked, answers
500 to a fraction of them.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psycopg

from .common import PY, ROOT, Env, free_port, log, peak_rss_mb

RECEIVER = r"""
import asyncio, random, sys, time
port, fail, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
log = open(out, "w", buffering=1 << 16)
async def handle(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length, event = 0, b""
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value)
                elif name == b"x-service-event-id":
                    event = value.strip()
            if length:
                await reader.readexactly(length)
            if fail and random.random() < fail:
                writer.write(b"HTTP/1.1 500 Error\r\nContent-Length: 0\r\n\r\n")
            else:
                log.write(f"{event.decode()} {time.time():.6f}\n")
                writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()
async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=1024)
    async with server:
        await server.serve_forever()
import signal
signal.signal(signal.SIGTERM, lambda *_: (log.flush(), sys.exit(0)))
asyncio.run(main())
"""


class Receiver:
    def __init__(self, fail: float = 0.0) -> None:
        self.port = free_port()
        self.log = Path(tempfile.mkstemp(suffix=".log")[1])
        self.proc = subprocess.Popen(
            [PY, "-c", RECEIVER, str(self.port), str(fail), str(self.log)]
        )
        time.sleep(0.5)
        self.url = f"http://127.0.0.1:{self.port}/hook"

    def stop(self) -> dict[str, float]:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=10)
        arrivals: dict[str, float] = {}
        for line in self.log.read_text().splitlines():
            event, at = line.split()
            arrivals.setdefault(event, float(at))
        self.log.unlink()
        return arrivals


def _vars(env: Env, **extra) -> dict:
    return {
        **env.vars,
        "DJANGO_SETTINGS_MODULE": "bench.qcluster_settings",
        "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
        "WEBHOOK_ALLOW_HTTP": "true",
        **extra,
    }


EMIT = """
import django, json, sys, time
django.setup()
from django.db import transaction
from merchants.models import Merchant
from webhooks.services import emit_events
merchant = Merchant.objects.get(pk=int(sys.argv[1]))
count, per, rate = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
began = time.monotonic()
for start in range(0, count, per):
    if rate:  # paced: commit number k at began + k * per / rate
        time.sleep(max(0.0, began + start / rate - time.monotonic()))
    with transaction.atomic():
        emit_events(merchant=merchant, events=[
            ("payment.success", {"installment_id": f"i{start + i}", "amount": 1})
            for i in range(min(per, count - start))])
"""


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _events(env: Env) -> list[tuple]:
    with psycopg.connect(env.vars["DATABASE_URL"]) as conn:
        return conn.execute(
            "SELECT e.public_id, extract(epoch from e.created_at), d.status, "
            "(SELECT count(*) FROM webhooks_deliveryattempt a "
            " WHERE a.event_id = e.id AND NOT a.delivered) "
            "FROM webhooks_event e JOIN webhooks_delivery d ON d.event_id = e.id"
        ).fetchall()


def _clear(env: Env) -> None:
    with psycopg.connect(env.vars["DATABASE_URL"]) as conn:
        conn.execute(
            "TRUNCATE webhooks_deliveryattempt, webhooks_delivery, webhooks_event, "
            "django_q_ormq, django_q_task CASCADE"
        )


def _unsettled(env: Env) -> int:
    with psycopg.connect(env.vars["DATABASE_URL"]) as conn:
        return conn.execute(
            "SELECT count(*) FROM webhooks_delivery d WHERE d.status <> 'delivered' "
            "AND NOT EXISTS (SELECT 1 FROM webhooks_deliveryattempt a "
            "WHERE a.event_id = d.event_id AND NOT a.delivered)"
        ).fetchone()[0]


def _run_cluster(
    env: Env, events: int, fail: float, wait: float, per: int = 100, rate: float = 0
) -> dict:
    """Emit `events` (`per` to a transaction; at `rate` events/s when given, else
    as fast as possible) to a qcluster delivering to a receiver that answers 500
    to a fraction `fail`; what arrived, how fast and how long after its commit."""
    receiver = Receiver(fail)
    merchant = json.loads(
        subprocess.run(
            [
                PY,
                "-m",
                "bench.seed",
                "webhooks",
                str(events),
                receiver.url,
                "whsec_bench",
            ],
            cwd=ROOT,
            env=_vars(env),
            check=True,
            capture_output=True,
            text=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )["merchant_pk"]
    cluster = subprocess.Popen(
        [PY, "manage.py", "qcluster"],
        cwd=ROOT,
        env=_vars(env),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    time.sleep(3)  # the cluster's workers start
    started = time.time()
    subprocess.run(
        [PY, "-c", EMIT, str(merchant), str(events), str(per), str(rate)],
        cwd=ROOT,
        env=_vars(env),
        check=True,
    )
    deadline = time.time() + wait
    rss = 0.0
    while time.time() < deadline:
        rss = max(rss, peak_rss_mb(cluster.pid, deep=True))
        # Done when every event is delivered or has a failed attempt on record
        # (an attempt in flight is neither: wait for its outcome).
        if _unsettled(env) == 0:
            break
        time.sleep(0.2)
    rss = max(rss, peak_rss_mb(cluster.pid, deep=True))
    os.killpg(cluster.pid, signal.SIGTERM)
    try:
        cluster.wait(timeout=3)  # its state is not needed: no long drain
    except subprocess.TimeoutExpired:
        os.killpg(cluster.pid, signal.SIGKILL)
    arrivals = receiver.stop()
    rows = _events(env)
    last = max(arrivals.values()) if arrivals else time.time()
    lags = [arrivals[e] - float(created) for e, created, _, _ in rows if e in arrivals]
    delivered = sum(1 for row in rows if row[2] == "delivered")
    failed_listed = sum(1 for row in rows if row[2] != "delivered" and row[3] > 0)
    return {
        "events": len(rows),
        "delivered": delivered,
        "failed_listed": failed_listed,
        "lost": len(rows) - delivered - failed_listed,
        "rate": len(arrivals) / max(last - started, 1e-6),
        "p50": _percentile(lags, 0.5),
        "p99": _percentile(lags, 0.99),
        "qcluster_rss_mb": rss,
    }


BASELINE = """
import django, sys, time
django.setup()
from concurrent.futures import ThreadPoolExecutor
import requests
from webhooks.models import Event
from webhooks.transport import signed_headers
url, threads = sys.argv[1], int(sys.argv[2])
events = list(Event.objects.values_list("public_id", "body"))
session = requests.Session()
adapter = requests.adapters.HTTPAdapter(pool_connections=1, pool_maxsize=threads)
session.mount("http://", adapter)
def post(item):
    public_id, body = item
    data = body.encode()
    headers = signed_headers(body=data, secret="whsec_bench", event_id=public_id,
                             timestamp=int(time.time()))
    session.post(url, data=data, headers=headers, timeout=10).close()
started = time.monotonic()
with ThreadPoolExecutor(threads) as pool:
    list(pool.map(post, events))
print(len(events) / (time.monotonic() - started))
"""


PACED_RATE = 100  # events/s, one event per transaction: well below capacity


def webhooks_section(env: Env, *, events: int, paced_seconds: int = 20) -> dict:
    raw: dict = {}
    log(f"webhooks: {events} events through qcluster (ORM broker) + sweeper")
    run = _run_cluster(env, events, 0.0, wait=120)
    raw["webhooks.cluster"] = run
    log(f"webhooks: {run}")
    _clear(env)
    paced = PACED_RATE * paced_seconds
    log(
        f"webhooks: commit-to-delivery, {paced} events at {PACED_RATE}/s, "
        "one per transaction"
    )
    raw["webhooks.paced"] = _run_cluster(
        env, paced, 0.0, wait=60, per=1, rate=PACED_RATE
    )
    raw["webhooks.paced_rate"] = PACED_RATE
    log(f"webhooks: {raw['webhooks.paced']}")
    log("webhooks: baseline, one process, requests.Session, thread pool")
    receiver = Receiver()
    threads = int(os.environ.get("WEBHOOK_DELIVERY_THREADS", "32"))
    out = subprocess.run(
        [PY, "-c", BASELINE, receiver.url, str(threads)],
        cwd=ROOT,
        env=_vars(env),
        check=True,
        capture_output=True,
        text=True,
    )
    receiver.stop()
    raw["webhooks.baseline_rate"] = float(out.stdout.strip().splitlines()[-1])
    _clear(env)
    failing = max(1000, events // 5)
    log(f"webhooks: {failing} events, 20% of answers 500")
    raw["webhooks.failing"] = _run_cluster(env, failing, 0.2, wait=90)
    log(
        f"webhooks: {raw['webhooks.failing']}, "
        f"baseline {raw['webhooks.baseline_rate']:.0f}/s"
    )
    _clear(env)
    return raw


if __name__ == "__main__":  # pragma: no cover - a manual probe
    sys.exit(0)
