"""What every bench section shares: paths, logging, the fresh database, gunicorn,
peak RSS."""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PY = sys.executable
PG = "postgres://postgres@127.0.0.1:5432"

# gunicorn configuration measured here and recommended for production (RESULTS.md).
GUNICORN_WORKERS = 3
GUNICORN_THREADS = 4


def log(message: str) -> None:
    print(f"[bench {datetime.now():%H:%M:%S}] {message}", flush=True)


def psql(sql: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-c", sql],
        check=True,
        capture_output=True,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Env:
    """The environment every bench process shares: one fresh database."""

    def __init__(self) -> None:
        self.db = f"bench_{int(time.time())}_{os.getpid()}"
        self.vars = {
            **os.environ,
            "DATABASE_URL": f"{PG}/{self.db}",
            "SECRET_KEY": "bench-secret-key-not-for-production-0123456789",
            "DEBUG": "false",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            # The limiter still runs on every request; the budget is just out of reach.
            "RATE_LIMIT_SANDBOX": "100000000",
            "RATE_LIMIT_PRODUCTION": "100000000",
            "LOG_LEVEL": "WARNING",
            "EMAIL_URL": "dummymail://",
            "PYTHONPATH": str(ROOT),
        }

    def manage(self, *args: str, settings: str = "config.settings") -> str:
        result = subprocess.run(
            [PY, "manage.py", *args],
            cwd=ROOT,
            env={**self.vars, "DJANGO_SETTINGS_MODULE": settings},
            check=True,
            capture_output=True,
            text=True,
        )
        return result.stdout

    def python(self, code: str) -> str:
        setup = "import django; django.setup()\n"
        result = subprocess.run(
            [PY, "-c", setup + code],
            cwd=ROOT,
            env={**self.vars, "DJANGO_SETTINGS_MODULE": "config.settings"},
            check=True,
            capture_output=True,
            text=True,
        )
        return result.stdout.strip()


@contextmanager
def fresh_database():
    env = Env()
    psql(f"CREATE DATABASE {env.db}")
    try:
        log(f"database {env.db}: migrating")
        env.manage("migrate", "--noinput")
        psql_db(
            env,
            "CREATE TABLE bench_baseline_row "
            "(id bigserial primary key, token text, body text)",
        )
        yield env
    finally:
        psql(f"DROP DATABASE IF EXISTS {env.db} WITH (FORCE)")


def psql_db(env: Env, sql: str) -> None:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", "postgres", "-q", "-d", env.db, "-c", sql],
        check=True,
        capture_output=True,
    )


@contextmanager
def gunicorn(
    env: Env, settings: str, worker_class: str = "gthread", threads: int | None = None
):
    """GUNICORN_WORKERS processes of `worker_class` (`threads` each, default
    GUNICORN_THREADS), with config/gunicorn.py and the `--timeout`
    docs/operations.md deploys; yielded once every worker has loaded the app."""
    port = free_port()
    ready = Path(tempfile.mkdtemp(prefix="bench-ready-"))
    proc = subprocess.Popen(
        [
            str(Path(PY).with_name("gunicorn")),
            *("-c", str(BENCH / "gunicorn_ready.py"), "config.wsgi"),
            *("-b", f"127.0.0.1:{port}", "--workers", str(GUNICORN_WORKERS)),
            *("--worker-class", worker_class),
            *("--threads", str(threads or GUNICORN_THREADS)),
            *("--timeout", "30", "--log-level", "warning"),
        ],
        cwd=ROOT,
        env={
            **env.vars,
            "DJANGO_SETTINGS_MODULE": settings,
            "BENCH_READY_DIR": str(ready),
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while len(list(ready.iterdir())) < GUNICORN_WORKERS:
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode()[-2000:])
        if time.monotonic() > deadline:
            raise RuntimeError("gunicorn's workers did not load the app in 300 s")
        time.sleep(0.05)
    try:
        yield proc, url
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        shutil.rmtree(ready, ignore_errors=True)


def _descendants(pid: int) -> list[int]:
    found = [pid]
    for task in Path(f"/proc/{pid}/task").glob("*"):
        children = task / "children"
        if children.exists():
            for child in children.read_text().split():
                found += _descendants(int(child))
    return found


def peak_rss_mb(pid: int, deep: bool = False) -> float:
    """Highest VmHWM (peak resident set) among a process and its children (all
    descendants when deep)."""
    if deep:
        pids = _descendants(pid)
    else:
        pids = [pid]
        children = Path(f"/proc/{pid}/task/{pid}/children")
        if children.exists():
            pids += [int(p) for p in children.read_text().split()]
    peak = 0
    for each in pids:
        status = Path(f"/proc/{each}/status")
        try:
            match = re.search(r"VmHWM:\s+(\d+) kB", status.read_text())
        except OSError:
            continue
        if match:
            peak = max(peak, int(match.group(1)))
    return round(peak / 1024, 1)
