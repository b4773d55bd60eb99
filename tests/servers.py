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


@contextmanager
def web_processes(count: int, extra_env: dict | None = None, threads: int = 1):
    """Start `count` gunicorn processes on free ports, each serving `threads`
    requests at a time; yield their base URLs."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": test_database_url(),
        **(extra_env or {}),
    }
    gunicorn = str(Path(sys.executable).with_name("gunicorn"))
    servers = []
    try:
        for _ in range(count):
            port = free_port()
            proc = subprocess.Popen(
                [gunicorn, "config.wsgi", "-b", f"127.0.0.1:{port}", "-w", "1"]
                + ["--threads", str(threads), "--log-level", "warning"],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            servers.append((proc, f"http://127.0.0.1:{port}"))
        for proc, url in servers:
            _wait_until_serving(proc, url)
        yield [url for _, url in servers]
    finally:
        for proc, _ in servers:
            proc.terminate()
        for proc, _ in servers:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


def _wait_until_serving(proc, url: str, attempts: int = 200) -> None:
    for _ in range(attempts):
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read().decode()[-2000:]}")
        try:
            requests.get(f"{url}/api/v1/", timeout=1)
            return
        except (requests.ConnectionError, requests.Timeout):
            # Waiting for a process to bind and its worker to import Django (the
            # master accepts before that), not for a clock rule.
            time.sleep(0.05)
    raise RuntimeError(f"server at {url} did not start")


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


def wait_until_running(proc, log_path: Path, seconds: float = 60) -> None:
    """Until the cluster's sentinel says it runs (polls a real process's log)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if QCLUSTER_RUNNING in log_path.read_text(errors="replace"):
            return
        if proc.poll() is not None:
            break
        time.sleep(0.1)
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
