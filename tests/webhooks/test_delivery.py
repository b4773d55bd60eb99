"""Outbox, signing, delivery, retries and replay against a real local receiver."""

import hashlib
import hmac
import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.db import transaction

from webhooks import delivery as delivery_pass
from webhooks import services, tasks
from webhooks.models import MAX_ATTEMPTS, Delivery, DeliveryAttempt, Event

from ..conftest import bearer, merchant_jwt
from ..receivers import Receiver
from .conftest import SECRET, make_subscriber

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
PAID = {
    "resourceType": "payment_plan",
    "resourceId": "plan_abc",
    "orderReference": "order-1",
    "amount": 150000,
    "currency": "NGN",
}
# Attempt n is sent this long after the event (1 min, 5 min, 30 min, 2 h, 6 h,
# 12 h, 24 h, 24 h between attempts).
SCHEDULE = [
    timedelta(0),
    timedelta(minutes=1),
    timedelta(minutes=6),
    timedelta(minutes=36),
    timedelta(hours=2, minutes=36),
    timedelta(hours=8, minutes=36),
    timedelta(hours=20, minutes=36),
    timedelta(hours=44, minutes=36),
    timedelta(hours=68, minutes=36),
]


def emit(merchant, event_type="payment.success", data=PAID) -> Event:
    return services.emit_event(merchant=merchant, event_type=event_type, data=data)


def attempts_of(event) -> list[DeliveryAttempt]:
    return list(event.attempts.order_by("attempted_at", "id"))


def delivery(event) -> Delivery:
    return Delivery.objects.get(event=event)


def test_emitted_event_is_sent_after_commit_signed_over_the_raw_body(
    subscriber, receiver, committed
):
    with committed():
        event = emit(subscriber)
        assert receiver.received == []

    [request] = receiver.received
    expected = hmac.new(SECRET.encode(), request.body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(request.headers["x-service-signature"], expected)
    assert request.headers["content-type"] == "application/json"
    assert request.headers["x-service-event-id"] == event.public_id
    assert request.body == event.body.encode()
    assert json.loads(request.body) == {
        "eventId": event.public_id,
        "eventType": "payment.success",
        "merchantId": subscriber.public_id,
        "livemode": True,
        "createdAt": json.loads(event.body)["createdAt"],
        "data": PAID,
    }
    assert json.loads(request.body)["createdAt"].endswith("Z")
    assert delivery(event).status == Delivery.Status.DELIVERED


def test_timestamped_signature_covers_timestamp_dot_body(subscriber, receiver):
    with time_machine.travel(START, tick=False):
        emit(subscriber)
        services.deliver_due()

    [request] = receiver.received
    timestamp = request.headers["x-service-timestamp"]
    assert timestamp == str(int(START.timestamp()))
    signed = hmac.new(
        SECRET.encode(), f"{timestamp}.".encode() + request.body, hashlib.sha256
    ).hexdigest()
    assert request.headers["x-service-signature-timestamped"] == (
        f"t={timestamp},v1={signed}"
    )


def test_a_rolled_back_transaction_emits_nothing(subscriber, receiver, committed):
    with committed(), pytest.raises(RuntimeError), transaction.atomic():
        emit(subscriber)
        raise RuntimeError("the change is undone")

    services.deliver_due()
    assert Event.objects.count() == 0
    assert receiver.received == []


def test_events_of_one_transaction_go_out_in_one_pass(
    subscriber, receiver, committed, monkeypatch
):
    passes = []
    monkeypatch.setattr(services, "enqueue_pass", lambda: passes.append(1))

    with committed(), transaction.atomic():
        for number in range(5):
            emit(subscriber, "debit.scheduled", {"resourceId": f"inst_{number}"})
        services.emit_events(
            merchant=subscriber,
            events=[("goods.release", {"resourceId": "plan_abc"})] * 2,
        )

    assert passes == [1]
    assert Delivery.objects.filter(status=Delivery.Status.PENDING).count() == 7


def test_events_of_several_merchants_go_out_each_to_its_own_merchant(
    subscriber, receiver, committed, monkeypatch
):
    """The engine emits a batch's events for many merchants in one call."""
    other = make_subscriber(receiver.url)
    passes = []
    monkeypatch.setattr(services, "enqueue_pass", lambda: passes.append(1))

    with committed(), transaction.atomic():
        events = services.emit_for_merchants(
            [
                (subscriber, [("installment.paid", {"resourceId": "inst_a"})] * 2),
                (other, [("installment.paid", {"resourceId": "inst_b"})]),
            ]
        )
        assert services.emit_for_merchants([]) == []

    assert passes == [1]
    assert [e.merchant_id for e in events] == [subscriber.pk] * 2 + [other.pk]
    assert [e.envelope["merchantId"] for e in events] == [
        subscriber.public_id,
        subscriber.public_id,
        other.public_id,
    ]
    services.deliver_due()
    assert len(receiver.received) == 3
    assert Delivery.objects.filter(status=Delivery.Status.DELIVERED).count() == 3


@pytest.fixture
def open_gate():
    """The queued-pass gate lives in the cache, which a transactional test does
    not roll back: open before and after, whatever the test left."""
    cache.delete(services.PASS_QUEUED_KEY)
    yield
    cache.delete(services.PASS_QUEUED_KEY)


@pytest.mark.django_db(transaction=True)
def test_commits_while_a_pass_is_queued_ride_on_it(
    subscriber, receiver, monkeypatch, open_gate
):
    """One queued pass at a time (real commits): the pass opens the gate before it
    claims, so it sends what was committed while it waited; the next commit
    queues the next pass."""
    queued = []
    monkeypatch.setattr(services, "async_task", lambda *a, **k: queued.append(a[0]))

    for number in range(3):
        with transaction.atomic():
            emit(subscriber, "debit.scheduled", {"resourceId": f"inst_{number}"})
    assert queued == [services.DELIVER_TASK]

    tasks.deliver_due_webhooks()
    assert len(receiver.received) == 3

    with transaction.atomic():
        emit(subscriber)
    assert queued == [services.DELIVER_TASK] * 2


@pytest.mark.django_db(transaction=True)
def test_a_broker_that_refuses_the_task_does_not_hold_the_gate(subscriber, monkeypatch):
    calls = []

    def refuse(*args, **kwargs):
        calls.append(args[0])
        raise ConnectionError("broker down")

    monkeypatch.setattr(services, "async_task", refuse)
    for _ in range(2):
        with transaction.atomic():
            emit(subscriber)

    assert len(calls) == 2  # each commit tried: the failed one left no gate shut


def test_500_then_200_makes_two_attempts_and_the_second_delivers(subscriber, receiver):
    receiver.answer(500, 200)
    with time_machine.travel(START, tick=False) as clock:
        event = emit(subscriber)
        services.deliver_due()
        clock.move_to(START + timedelta(seconds=59))
        services.deliver_due()
        assert len(receiver.received) == 1
        clock.move_to(START + timedelta(minutes=1))
        services.deliver_due()

    first, second = attempts_of(event)
    assert (first.attempt, first.delivered, first.status_code) == (1, False, 500)
    assert first.error == "HTTP 500"
    assert first.next_attempt_at == START + timedelta(minutes=1)
    assert (second.attempt, second.delivered, second.status_code) == (2, True, 200)
    assert delivery(event).status == Delivery.Status.DELIVERED
    assert receiver.received[0].body == receiver.received[1].body


def test_a_receiver_that_never_answers_well_gets_nine_attempts_then_the_event_fails(
    subscriber, receiver, api
):
    receiver.status = 503
    with time_machine.travel(START, tick=False) as clock:
        event = emit(subscriber)
        for due in SCHEDULE:
            clock.move_to(START + due - timedelta(seconds=1))
            services.deliver_due()
            clock.move_to(START + due)
            services.deliver_due()
        clock.move_to(START + timedelta(days=30))
        services.deliver_due()

        response = api.get(
            "/api/v1/webhooks/failed-attempts", **bearer(merchant_jwt(subscriber))
        )

    attempts = attempts_of(event)
    assert len(attempts) == MAX_ATTEMPTS == 9
    assert [a.attempted_at - START for a in attempts] == SCHEDULE
    assert [a.next_attempt_at for a in attempts] == [
        START + due for due in SCHEDULE[1:]
    ] + [None]
    assert delivery(event).status == Delivery.Status.FAILED
    assert Event.objects.get(pk=event.pk).status == "failed"
    assert len(receiver.received) == 9

    body = response.json()
    assert response.status_code == 200
    assert body["total"] == 9
    newest = body["data"][0]
    assert newest == {
        "id": attempts[-1].public_id,
        "livemode": True,
        "event_id": event.public_id,
        "event_type": "payment.success",
        "url": receiver.url,
        "attempt": 9,
        "trigger": "scheduled",
        "status_code": 503,
        "error": "HTTP 503",
        "latency_ms": attempts[-1].latency_ms,
        "attempted_at": "2026-03-05T05:36:00.000Z",
        "next_attempt_at": None,
    }
    assert [item["attempt"] for item in body["data"]] == list(range(9, 0, -1))

    receiver.status = 200
    replay = api.post(
        f"/api/v1/webhooks/events/{event.public_id}/replay",
        **bearer(merchant_jwt(subscriber)),
    )
    assert replay.status_code == 200
    assert replay.json() == {
        "ok": True,
        "delivered": True,
        "status_code": 200,
        "latency_ms": replay.json()["latency_ms"],
        "event_id": event.public_id,
    }
    assert delivery(event).status == Delivery.Status.DELIVERED
    assert receiver.received[-1].body == event.body.encode()
    last = attempts_of(event)[-1]
    # The event's first replay, not a tenth attempt of the schedule.
    assert (last.attempt, last.trigger, last.delivered) == (1, "replay", True)
    assert last.next_attempt_at is None


def test_a_timeout_is_recorded_as_an_error_with_its_latency(
    subscriber, receiver, settings
):
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.3
    receiver.status = None  # never answers
    event = emit(subscriber)

    services.deliver_due()

    [attempt] = attempts_of(event)
    assert attempt.delivered is False
    assert attempt.status_code is None
    assert attempt.error == "timeout after 0.3 s"
    assert 300 <= attempt.latency_ms < 5000
    assert delivery(event).status == Delivery.Status.PENDING


def test_connection_refused_is_recorded_and_retried(local_network, db):
    closed = Receiver()
    url = closed.url
    closed.close()
    merchant = make_subscriber(url)
    with time_machine.travel(START, tick=False):
        event = emit(merchant)
        services.deliver_due()

    [attempt] = attempts_of(event)
    assert attempt.error == "connection refused"
    assert attempt.status_code is None
    assert delivery(event).next_attempt_at == START + timedelta(minutes=1)


def test_no_event_is_lost_while_the_receiver_is_down_for_a_day(local_network, db):
    """Nothing listens on the merchant's port for 24 hours; events keep coming.
    The sweeper runs every 5 minutes of the moved clock throughout."""
    down = Receiver()
    port = down.server.server_address[1]
    url = down.url
    down.close()
    merchant = make_subscriber(url)
    back_at = START + timedelta(hours=24)
    emitted = []
    receiver = None
    try:
        with time_machine.travel(START, tick=False) as clock:
            now = START
            while now <= START + timedelta(days=3, hours=1):
                clock.move_to(now)
                if now in (
                    START,
                    START + timedelta(hours=3),
                    START + timedelta(hours=23),
                ):
                    emitted.append(emit(merchant).public_id)
                if now == back_at:
                    receiver = Receiver(port)
                services.deliver_due()
                now += timedelta(minutes=5)
    finally:
        if receiver:
            receiver.close()

    assert sorted(receiver.event_ids()) == sorted(emitted)
    statuses = set(Delivery.objects.values_list("status", flat=True))
    assert statuses == {Delivery.Status.DELIVERED}


def test_a_merchant_without_a_webhook_url_gets_recorded_failures(db):
    merchant = make_subscriber("")
    event = emit(merchant)

    services.deliver_due()

    [attempt] = attempts_of(event)
    assert attempt.error == "no webhook URL is set"
    assert delivery(event).status == Delivery.Status.PENDING


def test_a_pass_after_delivery_sends_nothing_again(subscriber, receiver):
    event = emit(subscriber)
    services.deliver_due()
    services.deliver_due()

    assert len(receiver.received) == 1
    assert delivery(event).attempts == 1


def test_a_crashed_claim_is_sent_again_when_its_lease_ends(subscriber, receiver):
    with time_machine.travel(START, tick=False) as clock:
        event = emit(subscriber)
        delivery_pass._claim_due(10)  # a worker claims, then dies before sending
        services.deliver_due()
        assert receiver.received == []
        clock.move_to(START + services.CLAIM_LEASE)
        services.deliver_due()

    [request] = receiver.received
    assert request.headers["x-service-event-id"] == event.public_id
    assert delivery(event).status == Delivery.Status.DELIVERED
    assert [a.attempt for a in attempts_of(event)] == [2]


def test_unknown_event_types_are_refused(subscriber):
    with pytest.raises(ValueError, match="unknown event type"):
        emit(subscriber, "payment.maybe")
