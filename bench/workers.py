"""Workers section: gunicorn's `sync` workers against `gthread` (issue 25 item 13).

The same number of processes (GUNICORN_WORKERS) of each class, gthread with
GUNICORN_THREADS threads each, measured in turn (sync, gthread, gthread, sync,
sync, gthread: a busy moment of a shared machine falls on both), each figure the
median of its class's rounds:

- `api`: POST /api/v1/checkout/sessions under wrk, as the API section;
- `api_with_exports`: the same while SLOW_EXPORTS clients download a wallet CSV
  of 100,000 lines (16.7 MB) at SLOW_RATE each, a merchant's phone on a slow line:
  each holds what serves it (a sync worker, or one gthread thread) for the whole
  measurement;
- the web processes' peak RSS and the database connections open at the end.
"""

import json
import os
import socket
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from .api import MERCHANT, WRK_SCRIPT, body, wrk
from .common import GUNICORN_THREADS, GUNICORN_WORKERS, Env, gunicorn, log, peak_rss_mb
from .wallet import _seed

CLASSES = ("sync", "gthread")
ORDER = ("sync", "gthread", "gthread", "sync", "sync", "gthread")
SLOW_EXPORTS = 2
EXPORT_LINES = 100_000
READ_BYTES, READ_EVERY = 32 * 1024, 0.1  # 320 KiB/s per download
SLOW_RATE = "320 KiB/s"


@contextmanager
def slow_downloads(url: str, path: str, key: str, count: int):
    """`count` clients downloading `path` slowly until the block ends; yields a
    dict of the bytes each has read (so far) and the set of those whose download
    ended early (the server closed it: no 16.7 MB download ends at this rate)."""
    host, port = url.removeprefix("http://").split(":")
    stop = threading.Event()
    read = {n: 0 for n in range(count)}
    ended: set[int] = set()

    def download(n: int) -> None:
        with socket.socket() as client:
            client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
            client.settimeout(120)
            client.connect((host, int(port)))
            client.sendall(
                f"GET {path} HTTP/1.0\r\nHost: {host}\r\n"
                f"Authorization: Bearer {key}\r\n\r\n".encode()
            )
            while not stop.is_set():
                try:
                    chunk = client.recv(READ_BYTES)
                except OSError:
                    chunk = b""
                if not chunk:
                    ended.add(n)
                    return
                read[n] += len(chunk)
                stop.wait(READ_EVERY)  # the slow line

    threads = [threading.Thread(target=download, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    try:
        # Each download has its headers and first rows before the load starts.
        deadline = time.monotonic() + 120
        while not all(read.values()):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the slow exports did not start: {read}")
            time.sleep(0.05)
        yield read, ended
    finally:
        stop.set()
        for thread in threads:
            thread.join()


def _connections(env: Env) -> int:
    out = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-tAc"]
        + [f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{env.db}'"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(out.stdout.strip())


def _median(runs: list[dict]) -> dict:
    return {key: sorted(run[key] for run in runs)[len(runs) // 2] for key in runs[0]}


def workers_section(env: Env, seconds: int) -> dict:
    merchant = json.loads(env.python(MERCHANT))
    log(f"workers: seeding a wallet of {EXPORT_LINES} lines for the slow exports")
    wallet = _seed(env, str(EXPORT_LINES))
    export = f"/api/v1/merchant/{wallet['id']}/wallet?format=csv"
    script = Path(tempfile.mkstemp(suffix=".lua")[1])
    script.write_text(WRK_SCRIPT)
    run_env = {
        **os.environ,
        "WRK_API_KEY": merchant["key"],
        "WRK_BODY": body(merchant),
        "WRK_PATH": "/api/v1/checkout/sessions",
    }
    # Longer than other sections': each gthread thread opens its own database
    # connection on its first request.
    warm = min(5, seconds)
    runs: dict = {(name, kind): [] for name in CLASSES for kind in ("api", "exports")}
    rss: dict = {name: [] for name in CLASSES}
    connections: dict = {name: [] for name in CLASSES}
    slow_read: dict = {name: [] for name in CLASSES}
    cut = dict.fromkeys(CLASSES, 0)
    for number, name in enumerate(ORDER, 1):
        threads = GUNICORN_THREADS if name == "gthread" else 1
        with gunicorn(env, "config.settings", worker_class=name, threads=threads) as (
            proc,
            url,
        ):
            log(f"workers: {name}, run {number} of {len(ORDER)}: API alone")
            wrk(url, script, warm, run_env)
            runs[name, "api"].append(wrk(url, script, seconds, run_env))
            log(f"workers: {name}: API beside {SLOW_EXPORTS} slow CSV exports")
            with slow_downloads(url, export, wallet["key"], SLOW_EXPORTS) as (
                read,
                ended,
            ):
                wrk(url, script, warm, run_env)
                runs[name, "exports"].append(wrk(url, script, seconds, run_env))
                # Still downloading at the end: they held their share throughout.
                slow_read[name].append(min(read.values()))
                cut[name] += len(ended)
            connections[name].append(_connections(env))
            rss[name].append(peak_rss_mb(proc.pid))
    script.unlink()
    raw: dict = {
        "workers.config": {
            "load_average": [round(load, 1) for load in os.getloadavg()],
            "workers": GUNICORN_WORKERS,
            "threads": GUNICORN_THREADS,
            "slow_exports": SLOW_EXPORTS,
            "rounds": len(ORDER) // len(CLASSES),
        }
    }
    for name in CLASSES:
        raw[f"workers.{name}.api"] = _median(runs[name, "api"])
        raw[f"workers.{name}.api_with_exports"] = _median(runs[name, "exports"])
        raw[f"workers.{name}.rss_mb"] = max(rss[name])
        raw[f"workers.{name}.db_connections"] = max(connections[name])
        raw[f"workers.{name}.export_mb_read"] = round(min(slow_read[name]) / 1e6, 1)
        raw[f"workers.{name}.exports_cut"] = cut[name]
    return raw


def workers_note(raw: dict) -> str:
    config = raw["workers.config"]
    return (
        f"workers: {config['workers']} sync workers against {config['workers']} "
        f"gthread workers of {config['threads']} threads, measured in turn "
        f"({', '.join(ORDER)}), each figure the median of its class's "
        f"{config['rounds']} rounds; `api_with_exports` beside "
        f"{config['slow_exports']} CSV downloads at {SLOW_RATE} each. The machine "
        "was shared with other sessions' test suites (load average "
        f"{'/'.join(str(load) for load in config['load_average'])} at the end on "
        "2 cores): compare the classes' ratios, not the absolute figures"
    )


def workers_figures(raw: dict) -> dict:
    """Each gthread figure beside sync's (ratio gthread / sync)."""
    if "workers.sync.api" not in raw:
        return {}
    out = {}
    units = {"rps": "requests/s", "p50_ms": "ms", "p99_ms": "ms"}
    for run in ("api", "api_with_exports"):
        sync = raw[f"workers.sync.{run}"]
        for name in CLASSES:
            found = raw[f"workers.{name}.{run}"]
            for key, unit in units.items():
                base = sync[key] if name == "gthread" else None
                ratio = round(found[key] / base, 3) if base else None
                out[f"workers.{name}.{run}.{key.removesuffix('_ms')}"] = {
                    "value": found[key],
                    "unit": unit,
                    "baseline": base,
                    "ratio": ratio,
                }
            out[f"workers.{name}.{run}.non_2xx"] = {
                "value": found["non_2xx"],
                "unit": "responses",
                "baseline": None,
                "ratio": None,
            }
    for name in CLASSES:
        for key, unit in (
            ("rss_mb", "MB (peak, one process)"),
            ("db_connections", "connections open at the end"),
            ("export_mb_read", "MB each slow export had read at the end"),
            ("exports_cut", f"of {SLOW_EXPORTS * len(ORDER) // 2} slow exports"),
        ):
            out[f"workers.{name}.{key}"] = {
                "value": raw[f"workers.{name}.{key}"],
                "unit": unit,
                "baseline": None,
                "ratio": None,
            }
    return out
