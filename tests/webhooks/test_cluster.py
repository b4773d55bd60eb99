"""End to end: a real django-q2 cluster (`manage.py qcluster`) on the test
database delivers an emitted event to the local receiver."""

import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager

import pytest
from django_q.conf import Conf
from django_q.models import Task

from tests import servers
from webhooks import services
from webhooks.models import Delivery

from .conftest import make_subscriber


@contextmanager
def qcluster(log_path):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings_qcluster",
        "DATABASE_URL": servers.test_database_url(),
        "WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
        "WEBHOOK_ALLOW_HTTP": "true",
    }
    log = open(log_path, "wb")  # noqa: SIM115 - closed below
    proc = subprocess.Popen(
        [sys.executable, "manage.py", "qcluster"],
        cwd=servers.ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        yield proc
    finally:
        log.close()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def wait_for(predicate, seconds: float = 60) -> bool:
    """Polls real processes (not a clock rule)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


@pytest.mark.django_db(transaction=True)
def test_a_real_qcluster_delivers_an_emitted_event(receiver, monkeypatch, tmp_path):
    merchant = make_subscriber(receiver.url)
    # This process enqueues for the cluster instead of running the task inline.
    monkeypatch.setattr(Conf, "SYNC", False)

    log = tmp_path / "qcluster.log"
    with qcluster(log):
        event = services.emit_event(
            merchant=merchant,
            event_type="payment.success",
            data={"resourceType": "payment_plan", "resourceId": "plan_1"},
        )
        arrived = receiver.arrived.wait(90)
        settled = wait_for(
            lambda: Delivery.objects.get(event=event).status == "delivered"
        )
        ran_in_cluster = wait_for(
            lambda: Task.objects.filter(
                func=services.DELIVER_TASK, success=True
            ).exists()
        )

    assert arrived, f"nothing arrived; qcluster said: {log.read_text()[-3000:]}"

    assert receiver.event_ids() == [event.public_id]
    assert receiver.received[0].body == event.body.encode()
    assert settled
    assert ran_in_cluster
