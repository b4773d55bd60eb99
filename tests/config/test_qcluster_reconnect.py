"""A real task cluster whose database connections were dropped (a database
restart, a failover, an idle-connection reaper) runs the next task at its first
try and keeps its heartbeat: every process of the cluster closes an unusable
connection before using it, the sentinel's heartbeat too
(config/api/management/commands/qcluster.py).

A drop that lands while a query is in flight, after the health check, is made
certain below rather than left to a busy machine: the server terminates the
connection right before the query (a real termination). The calls the cluster's
loops repeat through the ORM broker (the pusher's pull, the heartbeat, the
acknowledgement) are then made once more on a new connection, with a WARNING;
only a second failure is an ERROR."""

import logging
import queue
import threading
import time
from contextlib import contextmanager
from datetime import timedelta

import pytest
from django.db import close_old_connections, connection, connections
from django.utils import timezone
from django_q.brokers.orm import ORM
from django_q.conf import Conf
from django_q.models import OrmQ, Task
from django_q.pusher import pusher
from django_q.signing import SignedPackage
from django_q.tasks import async_task

from config.api.management.commands import qcluster
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


def terminate(pid: int) -> None:
    """The server ends backend `pid`, as a restart or a failover would; asked on
    a connection of its own, and waits (up to 60 s) until the backend is gone."""
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s, 60000)", [pid])
    finally:
        other.close()


@contextmanager
def dropped_before_queries(count: int):
    """The server terminates this thread's connection right before each of its
    next `count` queries: after the health check, while the query is on its way
    (the health check's own `SELECT 1` does not count)."""
    left = [count]

    def terminate_then_execute(execute, sql, params, many, context):
        if left[0]:
            left[0] -= 1
            terminate(context["connection"].connection.info.backend_pid)
        return execute(sql, params, many, context)

    with connections["default"].execute_wrapper(terminate_then_execute):
        yield


@contextmanager
def canceled_once():
    """The server cancels the next query (as a statement timeout would): it
    answers with an error, the connection stays."""
    left = [1]

    def cancel_instead(execute, sql, params, many, context):
        if left[0]:
            left[0] -= 1
            sql, params = (
                "SELECT pg_cancel_backend(pg_backend_pid()), pg_sleep(60)",
                None,
            )
        return execute(sql, params, many, context)

    with connections["default"].execute_wrapper(cancel_instead):
        yield


@pytest.fixture
def broker(monkeypatch, caplog):
    """The ORM broker as `manage.py qcluster` leaves it in the cluster's
    processes (restored after the test), with one task queued."""
    for name in ("dequeue", "set_stat", "delete"):
        monkeypatch.setattr(ORM, name, getattr(ORM, name))
    qcluster._broker_retries_dropped_connections()
    caplog.set_level(logging.INFO)
    orm = ORM(list_key="dropped")
    orm.enqueue(SignedPackage.dumps({"id": "probe", "name": "probe", "func": PROBE}))
    yield orm
    connections["default"].close()  # a connection a test broke is not reused


def pull(broker, monkeypatch, drops: int = 0) -> list[dict]:
    """One pass of django-q2's pusher, the connection terminated before `drops`
    of its queries; the tasks it handed to the workers."""
    monkeypatch.setattr("django_q.pusher.sleep", lambda seconds: None)
    handed = queue.SimpleQueue()
    stop = threading.Event()
    stop.set()  # the pusher stops after one pass
    with dropped_before_queries(drops):
        pusher(handed, stop, broker)
    return [handed.get_nowait() for _ in range(handed.qsize())]


def logged(caplog, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == level]


def test_a_pull_its_connection_dropped_under_is_made_again_without_an_error(
    broker, monkeypatch, caplog
):
    handed = pull(broker, monkeypatch, drops=1)

    assert [task["id"] for task in handed] == ["probe"]
    assert logged(caplog, logging.ERROR) == []  # before: "Failed to pull task..."
    (warning,) = logged(caplog, logging.WARNING)
    assert "dropped during the broker's dequeue" in warning


def test_a_pull_that_fails_again_on_the_new_connection_is_an_error(
    broker, monkeypatch, caplog
):
    handed = pull(broker, monkeypatch, drops=2)

    close_old_connections()  # as the pusher django-q2 starts anew does
    assert handed == []
    assert logged(caplog, logging.ERROR) == ["Failed to pull task from broker"]
    assert len(logged(caplog, logging.WARNING)) == 1
    assert OrmQ.objects.filter(key="dropped").count() == 1  # still queued


def test_a_pull_the_server_answered_with_an_error_is_not_made_again(
    broker, monkeypatch, caplog
):
    with canceled_once():
        handed = pull(broker, monkeypatch)

    assert handed == []
    assert logged(caplog, logging.ERROR) == ["Failed to pull task from broker"]
    assert logged(caplog, logging.WARNING) == []


def test_a_heartbeat_and_an_acknowledgement_are_made_again_too(broker, caplog):
    (queued,) = OrmQ.objects.filter(key="dropped")
    with dropped_before_queries(1):
        broker.set_stat("django_q:dropped:probe", "beat", 30)
    with dropped_before_queries(1):
        broker.acknowledge(queued.pk)

    assert broker.get_stat("django_q:dropped:probe") == "beat"
    assert not OrmQ.objects.filter(pk=queued.pk).exists()
    assert logged(caplog, logging.ERROR) == []
    assert [w.split(" (")[0] for w in logged(caplog, logging.WARNING)] == [
        "The database connection dropped during the broker's set_stat",
        "The database connection dropped during the broker's delete",
    ]
