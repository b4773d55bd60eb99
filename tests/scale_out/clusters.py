"""Real django-q2 clusters (`manage.py qcluster`) on the test database, started
together, for the tests of the queue as deployed: with REDIS_URL set they and this
test process share the Redis broker."""

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from django_q.models import Task

from tests import servers


@contextmanager
def qclusters(count: int, log_dir: Path, extra_env: dict | None = None):
    """Start `count` clusters and wait until each runs; yield their log files
    (each task a cluster takes is logged there as `processing ...`)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings_qcluster",
        "DATABASE_URL": servers.test_database_url(),
        "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
        "WEBHOOK_ALLOW_HTTP": "true",
        **(extra_env or {}),
    }
    logs = [log_dir / f"qcluster-{n}.log" for n in range(count)]
    procs = []
    try:
        for log in logs:
            with open(log, "wb") as out:
                procs.append(
                    subprocess.Popen(
                        [sys.executable, "manage.py", "qcluster"],
                        cwd=servers.ROOT,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        for proc, log in zip(procs, logs, strict=True):
            if not wait_for(lambda log=log: "running." in log.read_text(), 60):
                raise RuntimeError(f"qcluster did not start: {tail(log)}")
            if proc.poll() is not None:
                raise RuntimeError(f"qcluster exited: {tail(log)}")
        yield logs
    finally:
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def wait_for(predicate, seconds: float) -> bool:
    """Polls real processes (not a clock rule)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def tail(log: Path) -> str:
    return log.read_text()[-3000:]


def processed(log: Path, func: str) -> int:
    """How many tasks running `func` this cluster took."""
    lines = log.read_text().splitlines()
    return sum(1 for line in lines if " processing " in line and f"'{func}'" in line)


def overlapping(tasks: list[Task]) -> bool:
    """Two of these tasks ran at the same time (with one worker per cluster,
    in two clusters)."""
    ordered = sorted(tasks, key=lambda task: task.started)
    return any(
        later.started < earlier.stopped
        for earlier, later in zip(ordered, ordered[1:], strict=False)
    )
