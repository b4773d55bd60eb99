"""A real task cluster whose database connections were dropped (a database
restart, a failover, an idle-connection reaper) runs the next task at its first
try and keeps its heartbeat: every process of the cluster closes an unusable
connection before using it, the sentinel's heartbeat too
(config/api/management/commands/qcluster.py)."""

import time
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone
from django_q.conf import Conf
from django_q.models import Task
from django_q.tasks import async_task

from config.observability.cluster import heartbeats
from tests import servers

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql", reason="pg_terminate_backend"
    ),
]

PROBE = "installments.notifications.tasks.send_collection_receipts"


def wait_for(predicate, seconds: float) -> bool:
    """Polls real processes (not a clock rule)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def cluster_backends() -> list[int]:
    """Terminate every other connection to the test database (the cluster's)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        return [row[0] for row in cursor.fetchall()]


def finished(task_id: str):
    return Task.objects.filter(id=task_id).first()


def heartbeat_since(moment) -> bool:
    """A heartbeat written after `moment` (the sentinel writes one every half
    second, here into the database cache)."""
    fresh = heartbeats().freshest_age
    return fresh is not None and timezone.now() - timedelta(seconds=fresh) > moment


def test_the_first_task_after_the_connections_dropped_succeeds(monkeypatch, tmp_path):
    monkeypatch.setattr(Conf, "SYNC", False)
    log = tmp_path / "qcluster.log"
    with servers.qcluster(log) as proc:
        servers.wait_until_running(proc, log)
        first = async_task(PROBE)
        assert wait_for(lambda: finished(first), 60), log.read_text()[-3000:]
        # Every process of the cluster has used its connection by now.
        terminated = cluster_backends()
        dropped_at = timezone.now()
        said_before = log.read_text(errors="replace")

        second = async_task(PROBE)
        ran = wait_for(lambda: finished(second), 60)
        # Before the fix the heartbeat came back only with the next scheduler
        # pass (up to 30 s), failing every half second until then.
        beating = wait_for(lambda: heartbeat_since(dropped_at), 60)
        after = log.read_text(errors="replace")[len(said_before) :]

    assert terminated, "the cluster held no connection"
    assert ran, f"the task after the drop never finished: {after[-3000:]}"
    task = finished(second)
    assert task.success, task.result
    assert task.attempt_count == 1
    assert beating, f"no heartbeat since the drop: {after[-3000:]}"
    errors = [line for line in after.splitlines() if " ERROR " in line]
    assert errors == []  # before: "the connection is closed", twice a second
