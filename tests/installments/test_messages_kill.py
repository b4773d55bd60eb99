"""Done-means of issue 25 item 2: a real task cluster is killed (SIGKILL on its
process group) while it sends collection receipts and refund receipts, then
started again. Every message is sent; none twice except one the kill caught
between the provider's answer and our record of it, at most one per worker
(each message is recorded as soon as the provider answered it).

The provider is tests/mail_drop.py: a folder both processes see, one file per
e-mail accepted, counted by the Message-ID that carries our message id."""

import os
import signal
import time
from types import SimpleNamespace

import pytest
from django.db import connection, transaction
from django_q.conf import Conf
from django_q.tasks import async_task

from installments.notifications import services
from installments.notifications.models import Message
from tests import servers
from tests.mail_drop import copies

from .conftest import make_active_plan

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason="row locks and two processes writing at once: PostgreSQL",
    ),
]

PLANS = 12
WORKERS = 2
LEASE_SECONDS = 3  # the cluster's MESSAGE_LEASE_SECONDS, short for the test
RECEIPTS_TASK = "installments.notifications.tasks.send_collection_receipts"
SEND_DUE_TASK = "installments.notifications.tasks.send_due_messages"


def wait_for(predicate, seconds: float, every: float = 0.05) -> bool:
    """Polls real processes and a shared folder (not a clock rule)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every)
    return False


def refunds_processed(plans) -> None:
    """Each plan's refund processed: its receipt recorded in the refund's
    transaction, its task queued for the cluster on commit."""
    for n, setup in enumerate(plans, start=1):
        with transaction.atomic():
            services.refund_receipt_send(
                SimpleNamespace(
                    public_id=f"rf_kill{n:04d}",
                    amount=10_000,
                    currency="NGN",
                    plan=setup.plan,
                )
            )


def sweep_until_all_sent(total: int, seconds: float) -> bool:
    """Stands in for the every-minute sweep schedule (and the two-minute
    receipt sweep): queue both every lease's time, until every message is
    recorded sent."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        async_task(RECEIPTS_TASK)
        async_task(SEND_DUE_TASK)
        if wait_for(
            lambda: Message.objects.filter(status=Message.Status.SENT).count() == total,
            LEASE_SECONDS + 1,
            every=0.5,
        ):
            return True
    return False


def test_a_killed_cluster_loses_no_receipt_and_sends_none_twice_but_in_flight(
    monkeypatch, tmp_path
):
    owner = make_active_plan().owner
    plans = [
        make_active_plan(
            owner=owner,
            email=f"shopper{n}@mail.example.com",
            order_reference=f"ORD-KILL-{n}",
        )
        for n in range(1, PLANS)
    ]
    # A deposit receipt of every plan, a refund receipt of each in `plans`.
    total = 2 * len(plans) + 1
    drop = tmp_path / "provider"
    drop.mkdir()
    env = servers.qcluster_env(
        TEST_MAIL_DROP_DIR=str(drop),
        TEST_MAIL_DROP_DELAY="0.15",
        TEST_Q_WORKERS=str(WORKERS),
        MESSAGE_LEASE_SECONDS=str(LEASE_SECONDS),
    )
    monkeypatch.setattr(Conf, "SYNC", False)  # this process queues for the cluster

    first_log = tmp_path / "qcluster-1.log"
    with servers.qcluster(first_log, env) as proc:
        servers.wait_until_running(proc, first_log)
        async_task(RECEIPTS_TASK)
        refunds_processed(plans)
        started = wait_for(lambda: sum(copies(drop).values()) >= total // 3, 120)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        assert wait_for(
            lambda: not servers.live_group_members(proc.pid), servers.READY_SECONDS
        )
    at_kill = Message.objects.filter(status=Message.Status.SENT).count()
    accepted_at_kill = sum(copies(drop).values())

    second_log = tmp_path / "qcluster-2.log"
    with servers.qcluster(second_log, env) as proc:
        servers.wait_until_running(proc, second_log)
        done = sweep_until_all_sent(total, 240)

    log = second_log.read_text(errors="replace")[-3000:]
    assert started, first_log.read_text(errors="replace")[-3000:]
    assert at_kill < total, "the kill came after every message was sent"
    assert done, log
    messages = list(Message.objects.order_by("id"))
    assert len(messages) == total
    assert {m.kind for m in messages} == {"receipt_collection", "receipt_refund"}
    sent = copies(drop)
    ids = {f"<message-{m.pk}@installments.ng>": m for m in messages}
    assert set(sent) == set(ids), "a message went out that we have no record of"
    twice = [key for key, n in sent.items() if n > 1]
    # Each copy past the first is one the kill caught after the provider's
    # answer and before our record: at most one per worker, and sent again
    # only by a later attempt.
    assert len(twice) <= WORKERS, (twice, accepted_at_kill, at_kill)
    assert all(sent[key] == 2 and ids[key].attempts >= 2 for key in twice)
    assert sum(sent.values()) == total + len(twice)
    print(
        f"at the kill {accepted_at_kill} accepted, {at_kill} recorded sent; "
        f"sent twice: {len(twice)}"
    )
