"""`manage.py qcluster` stops within seconds however it is told to: SIGTERM to its
whole process group (systemd, `timeout`), or SIGTERM/SIGINT to its main process
only (`kill PID`, `docker stop`, `make run`'s trap), even with a worker busy; and
`make run` stops both its processes on Ctrl-C or SIGTERM to its group."""

import os
import signal
import subprocess
from pathlib import Path

import pytest
import requests
from django_q.conf import Conf
from django_q.tasks import async_task

from tests import servers
from tests.servers import wait_for

STOP_WITHIN_SECONDS = 10

pytestmark = pytest.mark.django_db(transaction=True)


def gone_within(pgid: int, seconds: float) -> bool:
    return wait_for(lambda: not servers.live_group_members(pgid), seconds)


def test_sigterm_to_the_process_group_stops_every_process(tmp_path):
    log = tmp_path / "qcluster.log"
    with servers.qcluster(log) as proc:
        servers.wait_until_running(proc, log)
        members = servers.live_group_members(proc.pid)

        os.killpg(proc.pid, signal.SIGTERM)

        stopped = gone_within(proc.pid, STOP_WITHIN_SECONDS)
        left = servers.live_group_members(proc.pid)
    assert len(members) >= 4  # main, sentinel, worker, pusher, monitor
    assert stopped, f"still running: {left}; qcluster said: {log.read_text()[-3000:]}"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["TERM", "INT"])
def test_a_signal_to_the_main_process_only_stops_every_process(tmp_path, signum):
    log = tmp_path / "qcluster.log"
    with servers.qcluster(log) as proc:
        servers.wait_until_running(proc, log)

        proc.send_signal(signum)

        stopped = gone_within(proc.pid, STOP_WITHIN_SECONDS)
        left = servers.live_group_members(proc.pid)
    assert stopped, f"still running: {left}; qcluster said: {log.read_text()[-3000:]}"
    assert proc.returncode == 0


def test_a_worker_busy_with_a_long_task_does_not_hold_up_the_stop(
    tmp_path, monkeypatch
):
    """A task still running when the grace period ends is killed; the queue hands
    it out again later (every task is safe to run twice)."""
    monkeypatch.setattr(Conf, "SYNC", False)  # enqueue for the cluster
    log = tmp_path / "qcluster.log"
    with servers.qcluster(log) as proc:
        servers.wait_until_running(proc, log)
        async_task("time.sleep", 600)
        # The worker logs "Process-... processing <task name> 'time.sleep'".
        taken = wait_for(lambda: "'time.sleep'" in log.read_text())

        proc.send_signal(signal.SIGTERM)

        stopped = gone_within(proc.pid, STOP_WITHIN_SECONDS)
        left = servers.live_group_members(proc.pid)
    assert taken
    assert stopped, f"still running: {left}; qcluster said: {log.read_text()[-3000:]}"


def test_a_sentinel_that_dies_on_its_own_ends_the_command_with_an_error(tmp_path):
    """So that a supervisor restarts the cluster."""
    log = tmp_path / "qcluster.log"
    with servers.qcluster(log) as proc:
        servers.wait_until_running(proc, log)
        (sentinel,) = _children(proc.pid)

        os.kill(sentinel, signal.SIGKILL)

        code = proc.wait(STOP_WITHIN_SECONDS)
    assert code == 1


def _children(pid: int) -> list[int]:
    return [
        int(child)
        for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    ]


@pytest.fixture(scope="module")
def run_database(tmp_path_factory):
    """One SQLite file for the `make run` tests: the first run migrates it."""
    return f"sqlite:///{tmp_path_factory.mktemp('make_run') / 'run.sqlite3'}"


@pytest.mark.parametrize(
    "signum",
    # Ctrl-C in the terminal; systemd, `timeout`.
    [signal.SIGINT, signal.SIGTERM],
    ids=["Ctrl-C", "TERM"],
)
def test_make_run_stops_the_server_and_the_cluster_on_a_signal_to_its_group(
    tmp_path, run_database, signum
):
    log = tmp_path / "make_run.log"
    addr = f"127.0.0.1:{servers.free_port()}"
    env = {
        **os.environ,
        "DATABASE_URL": run_database,
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    with open(log, "wb") as out:
        make = subprocess.Popen(
            ["make", "--no-print-directory", "run", f"ADDR={addr}"],
            cwd=servers.ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        up = wait_for(
            lambda: (
                servers.QCLUSTER_RUNNING in log.read_text(errors="replace")
                and _serving(f"http://{addr}/api/v1/")
            ),
            180,
        )
        assert up, f"make run did not start: {log.read_text()[-3000:]}"
        members = servers.live_group_members(make.pid)

        os.killpg(make.pid, signum)

        stopped = gone_within(make.pid, STOP_WITHIN_SECONDS)
        left = servers.live_group_members(make.pid)
    finally:
        if servers.live_group_members(make.pid):
            os.killpg(make.pid, signal.SIGKILL)
        make.wait()
    assert len(members) >= 7  # make, its shell, runserver, the cluster's five
    assert stopped, f"still running: {left}; make run said: {log.read_text()[-3000:]}"
    assert not _serving(f"http://{addr}/api/v1/")


def _serving(url: str) -> bool:
    try:
        requests.get(url, timeout=servers.READY_SECONDS)
    except requests.RequestException:
        return False
    return True
