"""Real server processes (gunicorn) serving the test database, for tests that need
more than one web process."""

import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import requests
from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def _free_port() -> int:
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
            port = _free_port()
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
