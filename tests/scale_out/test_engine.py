"""The auto-debit engine with REDIS_URL (DESIGN sections 7 and 13): collection
passes are tasks on the Redis broker, taken by two clusters at once; every due
installment is charged once, and every event the engine emits reaches the
merchant once, through the delivery passes the same clusters run."""

import re
from collections import Counter

import pytest
from django.db.models import Count
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import Task
from django_q.tasks import async_task

from installments import tasks
from installments.plans.history import PaymentPlanStatusChange
from installments.plans.models import Installment, PaymentPlan
from merchants.models import Merchant
from payments.models import LedgerTransaction, SandboxTransaction
from webhooks.models import Delivery, Event
from webhooks.services import DELIVER_TASK

from ..installments.conftest import check_ledger
from ..installments.engines import due_installments
from ..webhooks.conftest import SECRET
from .clusters import overlapping, processed, qclusters, tail, wait_for

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

CUSTOMERS = 300  # two installments due each: 600, more than one batch of 500
PASSES = 4  # as the 5-minute schedule in each cluster and continuations add


def attempts(task: Task) -> int:
    """Installment attempts a collection pass took (from its summary line)."""
    return int(re.match(r"(\d+) attempt\(s\)", task.result).group(1))


@pytest.mark.django_db(transaction=True)
def test_two_clusters_collect_each_installment_once_and_deliver_each_event_once(
    receiver, monkeypatch, tmp_path
):
    plans = due_installments(CUSTOMERS)
    for merchant in Merchant.objects.all():
        merchant.webhook_url = receiver.url
        merchant.webhook_secret = SECRET
        merchant.save(update_fields=["webhook_url", "webhook_secret"])
    monkeypatch.setattr(Conf, "SYNC", False)
    due = 2 * CUSTOMERS

    env = {"INSTALLMENT_COLLECTION_THREADS": "4", "WEBHOOK_DELIVERY_THREADS": "8"}
    with qclusters(2, tmp_path, env) as logs:
        broker = get_broker()
        for _ in range(PASSES):
            async_task(tasks.COLLECT_TASK, broker=broker, task_name="collect")
        collected = wait_for(
            lambda: Task.objects.filter(func=tasks.COLLECT_TASK).count() == PASSES,
            120,
        )
        delivered = wait_for(
            lambda: (
                Event.objects.count() > 0
                and not Delivery.objects.exclude(status="delivered").exists()
                and broker.queue_size() == 0
            ),
            120,
        )

    assert collected, f"passes unfinished; a cluster said: {tail(logs[0])}"
    assert delivered, f"events undelivered; a cluster said: {tail(logs[1])}"
    # Every pass succeeded, and together they took each installment once.
    passes = list(Task.objects.filter(func=tasks.COLLECT_TASK))
    assert all(task.success for task in passes), [task.result for task in passes]
    assert sum(attempts(task) for task in passes) == due
    assert all(processed(log, tasks.COLLECT_TASK) for log in logs)
    assert overlapping([task for task in passes if attempts(task)])
    # Counted at the sandbox: one charge per installment, its first reference.
    assert not Installment.objects.exclude(status="paid").exists()
    charges = SandboxTransaction.objects.filter(kind="authorization_charge")
    assert sorted(charges.values_list("reference", flat=True)) == sorted(
        f"{public_id}_a1"
        for public_id in Installment.objects.values_list("public_id", flat=True)
    )
    assert LedgerTransaction.objects.filter(kind="collection").count() == due
    completions = (
        PaymentPlanStatusChange.objects.filter(to_status="completed")
        .values("plan_id")
        .annotate(count=Count("id"))
    )
    assert len(completions) == len(plans)
    assert {row["count"] for row in completions} == {1}
    assert PaymentPlan.objects.filter(status="completed").count() == CUSTOMERS
    assert "clean" in check_ledger()
    # Counted at the receiver: every event the engine emitted, once.
    arrived = Counter(receiver.event_ids())
    assert set(arrived) == set(Event.objects.values_list("public_id", flat=True))
    assert set(arrived.values()) == {1}
    assert Event.objects.filter(event_type="installment.paid").count() == due
    assert not Task.objects.filter(func=DELIVER_TASK, success=False).exists()
