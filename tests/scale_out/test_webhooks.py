"""Webhooks with REDIS_URL (DESIGN sections 10 and 13): the one-queued-pass gate
is a key in the Redis cache, and delivery passes travel on the Redis broker to
any number of clusters, which never send one event twice."""

from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.cache import cache
from django.db import connection
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import Task
from django_q.signing import SignedPackage
from django_q.tasks import async_task

from webhooks import services
from webhooks.models import Delivery, DeliveryAttempt

from ..concurrency import run_concurrently
from ..conftest import redis_client
from ..webhooks.conftest import make_subscriber
from .clusters import overlapping, processed, qclusters, tail, wait_for

pytestmark = pytest.mark.redis

EVENTS = 200


def emit(merchant, n: int = 0):
    return services.emit_event(
        merchant=merchant,
        event_type="payment.success",
        data={"resourceType": "payment_plan", "resourceId": f"plan_{n}"},
    )


def attempted() -> int:
    """Deliveries attempted by the passes whose results the clusters saved."""
    passes = Task.objects.filter(func=services.DELIVER_TASK)
    return sum(result or 0 for result in passes.values_list("result", flat=True))


def queued_funcs(broker) -> list[str]:
    raw = broker.connection.lrange(broker.list_key, 0, -1)
    return [SignedPackage.loads(item)["func"] for item in raw]


@pytest.mark.django_db(transaction=True)
def test_the_one_queued_pass_gate_is_a_redis_key_taken_once(monkeypatch):
    """Twenty transactions commit at once, from twenty threads, while no pass
    has started: one pass is queued on the Redis broker. The pass opens the gate
    as it starts; the next commit queues the next pass."""
    merchant = make_subscriber("https://hooks.example.com/in")
    monkeypatch.setattr(Conf, "SYNC", False)  # enqueue, as a web process does
    broker = get_broker()

    answers = run_concurrently(lambda: emit(merchant), 20)

    assert not [answer for answer in answers if isinstance(answer, Exception)]
    assert Delivery.objects.filter(status="pending").count() == 20
    assert queued_funcs(broker) == [services.DELIVER_TASK]
    gate = cache.make_key(services.PASS_QUEUED_KEY)
    assert 0 < redis_client().ttl(gate) <= services.PASS_QUEUED_SECONDS

    services.pass_started()
    assert not redis_client().exists(gate)
    emit(merchant)

    assert queued_funcs(broker) == [services.DELIVER_TASK] * 2
    assert redis_client().exists(gate)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_clusters_on_the_redis_broker_deliver_every_event_exactly_once(
    receiver, monkeypatch, tmp_path
):
    """200 events committed from four threads while two clusters run: passes
    queued by the gate, and four more (as the sweeper and continuations add),
    are taken by both clusters at once. Counted at the receiver: every event
    arrived, none twice."""
    merchants = [make_subscriber(receiver.url) for _ in range(4)]
    monkeypatch.setattr(Conf, "SYNC", False)

    def emit_one(n: int):
        try:
            return emit(merchants[n % len(merchants)], n)
        finally:
            connection.close()

    # Small batches, so that passes take turns claiming while events arrive.
    with qclusters(2, tmp_path, {"WEBHOOK_DELIVERY_THREADS": "4"}) as logs:
        with ThreadPoolExecutor(4) as pool:
            events = list(pool.map(emit_one, range(EVENTS)))
        broker = get_broker()
        for _ in range(4):
            async_task(services.DELIVER_TASK, broker=broker, task_name="sweep")
        settled = wait_for(
            lambda: not Delivery.objects.exclude(status="delivered").exists(), 120
        )
        recorded = wait_for(
            lambda: broker.queue_size() == 0 and attempted() >= EVENTS, 60
        )

    assert settled, f"not all delivered; a cluster said: {tail(logs[0])}"
    assert recorded
    arrived = Counter(receiver.event_ids())
    assert set(arrived) == {event.public_id for event in events}
    assert set(arrived.values()) == {1}
    bodies = {
        item.headers["x-service-event-id"]: item.body for item in receiver.received
    }
    assert bodies == {event.public_id: event.body.encode() for event in events}
    assert DeliveryAttempt.objects.count() == EVENTS
    assert set(Delivery.objects.values_list("attempts", flat=True)) == {1}
    # Every pass succeeded, and together they attempted each delivery once.
    passes = list(Task.objects.filter(func=services.DELIVER_TASK))
    assert all(task.success for task in passes)
    assert attempted() == EVENTS
    # Both clusters took passes, and two that delivered ran at the same time
    # (one worker per cluster: in both clusters at once).
    assert all(processed(log, services.DELIVER_TASK) for log in logs)
    assert overlapping([task for task in passes if task.result])
