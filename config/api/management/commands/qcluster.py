"""`manage.py qcluster`: django-q2's cluster, stopped within seconds by SIGTERM or
SIGINT, whether sent to the main process or to its whole process group.

django-q2 1.11.1 stops the cluster from inside its signal handler: it sets the
multiprocessing Event that the sentinel process sleeps on, then joins the sentinel.
The sentinel keeps SIGTERM's default action, so a SIGTERM to the process group
(systemd's default, `timeout`) kills it while it sleeps on that Event,
and `Event.set()` in the main process then waits forever for the dead sleeper to
wake (`multiprocessing.Condition.notify`). A busy worker also holds a graceful stop
for as long as its task runs (up to `Q_CLUSTER.timeout`).

This command (it replaces django-q2's own: `config.api` comes before `django_q` in
INSTALLED_APPS) lets the signal handlers only note the request. The main thread
then stops the cluster as django-q2 does, unless the sentinel is already gone, and
a watchdog kills whatever is left of the cluster after STOP_GRACE_SECONDS: a task
cut short is handed out again by the queue later, and every task here is safe to
run twice (docs/operations.md).

It also makes the sentinel's heartbeat survive dropped database connections (a
database restart, a failover, `pg_terminate_backend`): django-q2 closes unusable
connections before each task (worker), each result (monitor) and each scheduler
pass, but the sentinel saves its heartbeat every half second without doing so,
so with the ORM broker (the heartbeat goes into the database cache) it logged
"the connection is closed" until the next scheduler pass (up to 30 s) while
`/readyz` said no cluster was running. The heartbeat now closes an unusable
connection first (a `SELECT 1` health check, CONN_HEALTH_CHECKS).

Closing first covers a connection dropped while its process was idle, not one
dropped after the health check, while the query is in flight (more likely the
busier the machine): the pusher's pull (every `poll`) then failed once, and
django-q2 logged "Failed to pull task from broker" at ERROR and restarted the
pusher after 10 s. So the ORM broker's calls that the cluster's loops repeat, the
pusher's pull (`dequeue`), the sentinel's heartbeat (`set_stat`) and the
monitor's acknowledgement (`delete`), try once more on a new connection when
the connection failed rather than the query (the server ended the session, or
none answered), with a WARNING; only a second failure reaches django-q2's
ERROR. Each is safe to repeat: a task the failed pull had already locked is
handed out again after `retry`, as it was before. Left as django-q2 has them:
the monitor's saving of a result and the scheduler pass (every 30 s), which
catch their own errors and log them (a drop inside one of their queries still
logs one ERROR), and the enqueueing of tasks, which could queue a task twice if
repeated.
"""

import contextlib
import functools
import logging
import os
import signal
import threading
import time
from pathlib import Path

from django.core.management.base import CommandError
from django.db import (
    InterfaceError,
    OperationalError,
    close_old_connections,
    connections,
)
from django_q.brokers.orm import ORM
from django_q.cluster import Cluster
from django_q.management.commands import qcluster
from django_q.status import Stat

logger = logging.getLogger(__name__)

# Workers finish their task within this; what still runs after it is killed. Inside
# the 10 seconds container runtimes wait before they send SIGKILL.
STOP_GRACE_SECONDS = 6.0
_POLL_SECONDS = 0.2
_SENTINEL_EXIT_SECONDS = 0.2


class Command(qcluster.Command):
    help = (
        "Start a django-q2 cluster; SIGTERM or SIGINT stops it within "
        f"{STOP_GRACE_SECONDS:g} seconds."
    )

    def handle(self, *args, **options):
        if options.get("cluster_name"):
            os.environ["Q_CLUSTER_NAME"] = options["cluster_name"]
        received: list[int] = []  # the signals asking to stop

        def request_stop(signum, frame):
            received.append(signum)

        # Before the sentinel forks: its processes inherit them.
        _heartbeat_reconnects()
        _broker_retries_dropped_connections()
        cluster = Cluster()  # installs django-q2's handlers: replaced right away
        signal.signal(signal.SIGTERM, request_stop)
        signal.signal(signal.SIGINT, request_stop)
        try:
            cluster.start()
        except RuntimeError:
            # The sentinel died while starting: of the group's signal, or of an
            # error it logged.
            if not received:
                raise
        if not options.get("run_once"):
            while not received and cluster.sentinel.is_alive():
                time.sleep(_POLL_SECONDS)
        died = not received and not options.get("run_once")
        if received:
            logger.info(
                "%s: stopping the cluster (at most %g s).",
                signal.Signals(received[0]).name,
                STOP_GRACE_SECONDS,
            )
        _stop(cluster)
        if died:
            raise CommandError("The cluster's sentinel process exited unexpectedly.")


def _heartbeat_reconnects() -> None:
    """The sentinel's heartbeat (`Stat.save`, every guard cycle) closes an
    unusable database connection before it writes."""
    save = Stat.save
    if getattr(save, "reconnects", False):
        return

    def save_reconnecting(self):
        close_old_connections()
        save(self)

    save_reconnecting.reconnects = True
    Stat.save = save_reconnecting


def _broker_retries_dropped_connections() -> None:
    """The ORM broker's calls the cluster's loops repeat try once more on a new
    connection when a dropped connection failed them."""
    for name in ("dequeue", "set_stat", "delete"):
        method = getattr(ORM, name)
        if not getattr(method, "reconnects", False):
            setattr(ORM, name, _retried_on_a_new_connection(method))


def _retried_on_a_new_connection(method):
    @functools.wraps(method)
    def retrying(broker, *args, **kwargs):
        try:
            return method(broker, *args, **kwargs)
        except (OperationalError, InterfaceError) as error:
            if not _dropped(error) or _in_a_transaction():
                raise
            first_line = (str(error).strip().splitlines() or [""])[0]
            logger.warning(
                "The database connection dropped during the broker's %s (%s: %s); "
                "trying once more on a new connection.",
                method.__name__,
                type(error).__name__,
                first_line,
            )
        # Closes the broken connection (its error is noted on it), unless Django
        # already did: a failed rollback closes it and the next use reconnects.
        close_old_connections()
        return method(broker, *args, **kwargs)

    retrying.reconnects = True
    return retrying


# SQLSTATE class 57P: the server ended the session (an administrator's or a
# crash's shutdown, a database starting up, an idle session timing out).
_SESSION_ENDED = "57P"


def _dropped(error: Exception) -> bool:
    """Whether the connection failed rather than the query: the server ended the
    session, or the error carries no SQLSTATE because no server answered (the
    connection broke, or no new one could be made). A query the server answered
    with an error (a deadlock, a timeout) fails as before, without a second try."""
    cause = error.__cause__  # the driver's error, which Django wraps
    sqlstate = getattr(cause, "sqlstate", None) or getattr(cause, "pgcode", None)
    return sqlstate is None or sqlstate.startswith(_SESSION_ENDED)


def _in_a_transaction() -> bool:
    """A transaction's owner must see its error: the cluster's loops run outside
    any, so this only guards other callers."""
    return any(conn.in_atomic_block for conn in connections.all(initialized_only=True))


def _stop(cluster: Cluster) -> None:
    watchdog = threading.Timer(STOP_GRACE_SECONDS, _force_stop)
    watchdog.daemon = True
    watchdog.start()
    try:
        # A signal to the whole group reaches the sentinel too, which then exits
        # at once: wait for that (on its pipe, not on a lock), so that nobody sets
        # the Event it died sleeping on. django-q2's stop() sets it only while the
        # sentinel lives, then waits for the sentinel to stop the workers.
        cluster.sentinel.join(_SENTINEL_EXIT_SECONDS)
        cluster.stop()
    finally:
        watchdog.cancel()
    _kill(_descendants(os.getpid()))  # normally none: the sentinel stopped them


def _force_stop() -> None:
    """Runs on the watchdog's thread: the main thread may be blocked for good."""
    leftovers = _descendants(os.getpid())
    logger.warning(
        "The cluster did not stop within %g s; killing %d processes (a task cut "
        "short runs again later).",
        STOP_GRACE_SECONDS,
        len(leftovers),
    )
    _kill(leftovers)
    logging.shutdown()
    os._exit(0)


def _kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for pid in pids:
        # Reaps our own children; the others are not ours to wait for.
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def _descendants(pid: int) -> list[int]:
    """Every live process below `pid` (Linux /proc; elsewhere none, so only
    django-q2's own stop applies)."""
    children: dict[int, list[int]] = {}
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # exited meanwhile
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses.
        ppid = int(stat.rpartition(")")[2].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: list[int] = []
    pending = [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found
