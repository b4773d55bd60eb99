"""Real server processes serving the test database: gunicorn, for tests that need
more than one web process, and django-q2's `qcluster`."""

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import requests
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_database_url() -> str:
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{Path(db['NAME']).resolve()}"
    user = db.get("USER") or "postgres"
    auth = f"{user}:{db['PASSWORD']}" if db.get("PASSWORD") else user
    host = db.get("HOST") or "127.0.0.1"
    return f"postgres://{auth}@{host}:{db.get('PORT') or 5432}/{db['NAME']}"


class Server:
    """One gunicorn master started by `gunicorns`: its process and base URL."""

    def __init__(self, proc: subprocess.Popen, url: str) -> None:
        self.proc, self.url = proc, url


@contextmanager
def gunicorns(count: int, extra_env: dict | None = None, threads: int | None = 1):
    """Start `count` gunicorns as deployed (`-c config/gunicorn.py`), one worker
    each serving `threads` requests at a time (None: as config/gunicorn.py says),
    on free ports; yield them once each answers."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": test_database_url(),
        **(extra_env or {}),
    }
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    started: list[Server] = []
    try:
        for _ in range(count):
            port = free_port()
            proc = subprocess.Popen(
                [gunicorn, "-c", "config/gunicorn.py", "config.wsgi"]
                + ["-b", f"127.0.0.1:{port}", "-w", "1", "--log-level", "warning"]
                + (["--threads", str(threads)] if threads else []),
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            started.append(Server(proc, f"http://127.0.0.1:{port}"))
        for server in started:
            wait_until_serving(server.proc, server.url)
        yield started
    finally:
        for server in started:
            server.proc.terminate()
        for server in started:
            try:
                server.proc.wait(timeout=READY_SECONDS)
            except subprocess.TimeoutExpired:
                server.proc.kill()


@contextmanager
def web_processes(count: int, extra_env: dict | None = None, threads: int = 1):
    """Start `count` gunicorn processes on free ports, each serving `threads`
    requests at a time; yield their base URLs."""
    with gunicorns(count, extra_env, threads) as started:
        yield [server.url for server in started]


# How long a test waits for a real process to be ready (a port to answer, a log
# line, a page to load): reached only when something is wrong, so generous
# enough for a shared machine under load (tests/config/test_waits.py).
READY_SECONDS = 120


def wait_for(predicate, seconds: float = READY_SECONDS, every: float = 0.05) -> bool:
    """Whether `predicate()` came true within `seconds`, asked every `every` s.
    Polls real processes; never a clock rule (those move the clock)."""
    deadline = time.monotonic() + seconds
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(every)


def wait_until_serving(
    proc, url: str, path: str = "/api/v1/", seconds: float = READY_SECONDS
) -> None:
    """Until gunicorn at `url` answers `path`. The master accepts before its
    worker has imported Django, so an answer, not a connection, is the sign."""

    def answers() -> bool:
        if proc.poll() is not None:
            error = proc.stderr.read().decode()[-2000:] if proc.stderr else ""
            raise RuntimeError(f"server exited: {error}")
        try:
            requests.get(f"{url}{path}", timeout=seconds)
        except (requests.ConnectionError, requests.Timeout):
            return False
        return True

    if not wait_for(answers, seconds):
        raise RuntimeError(f"server at {url} did not answer within {seconds} s")


QCLUSTER_RUNNING = "] running."  # the sentinel's "Q Cluster <name> [<queue>] running."


def qcluster_env(database_url: str | None = None, **extra: str) -> dict:
    """Environment of a real `manage.py qcluster` (asynchronous queue, one worker)
    on the test database, or on `database_url`."""
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings_qcluster",
        "DATABASE_URL": database_url or test_database_url(),
        "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
        "WEBHOOK_ALLOW_HTTP": "true",
        **extra,
    }


@contextmanager
def qcluster(log_path: Path, env: dict | None = None):
    """Start `manage.py qcluster` in its own process group, output to `log_path`;
    whatever of the group is left at the end is killed."""
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [sys.executable, "manage.py", "qcluster"],
            cwd=ROOT,
            env=env or qcluster_env(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        yield proc
    finally:
        if live_group_members(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def wait_until_running(proc, log_path: Path, seconds: float = READY_SECONDS) -> None:
    """Until the cluster's sentinel says it runs (polls a real process's log)."""

    def said() -> bool:
        return QCLUSTER_RUNNING in log_path.read_text(errors="replace")

    wait_for(lambda: said() or proc.poll() is not None, seconds, every=0.1)
    if not said():
        raise RuntimeError(f"qcluster did not start: {log_path.read_text()[-3000:]}")


def live_group_members(pgid: int) -> list[int]:
    """Processes of the group that still exist, zombies left out (an orphaned
    zombie waits for PID 1, which may never reap it, but it runs nothing)."""
    members = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # exited meanwhile
        # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
        state, _ppid, group = stat.rpartition(")")[2].split()[:3]
        if int(group) == pgid and state != "Z":
            members.append(int(entry.name))
    return members
