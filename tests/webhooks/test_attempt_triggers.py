"""Each delivery attempt says what sent it (`scheduled`, `replay`, `test`), and
each trigger numbers its own attempts: a replay never takes a scheduled retry's
number nor shows the schedule's next attempt (endpoints 21-23, the dashboard)."""

import json
import re
import threading
from datetime import UTC, datetime, timedelta
from importlib import import_module
from pathlib import Path

import pytest
import time_machine
from django.apps import apps as django_apps
from django.conf import settings as django_settings
from django.test import Client
from rest_framework.test import APIClient

from config.api.formats import iso_utc
from webhooks import services
from webhooks.models import RETRY_DELAYS, Delivery, DeliveryAttempt, Event

from ..concurrency import run_concurrently
from ..conftest import bearer, merchant_jwt
from ..dashboards import sign_in
from .conftest import make_subscriber

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"
FAILED_URL = "/api/v1/webhooks/failed-attempts"
LOG = "/dashboard/webhooks/"


def emit(merchant) -> Event:
    return services.emit_event(
        merchant=merchant,
        event_type="goods.release",
        data={"resourceType": "payment_plan", "resourceId": "plan_1"},
    )


def api_for(merchant) -> APIClient:
    api = APIClient()
    api.credentials(**bearer(merchant_jwt(merchant)))
    return api


def failed_items(merchant, **params) -> list[dict]:
    response = api_for(merchant).get(FAILED_URL, params)
    assert response.status_code == 200, response.content
    return response.json()["data"]


def listed(items) -> list[tuple]:
    return [
        (item["trigger"], item["attempt"], item["next_attempt_at"]) for item in items
    ]


def test_a_replay_between_retries_is_numbered_apart_and_moves_nothing(
    subscriber, receiver
):
    receiver.status = 503
    with time_machine.travel(START, tick=False) as clock:
        event = emit(subscriber)
        services.deliver_due()  # scheduled attempt 1 fails: retry in 1 minute
        first_retry = START + RETRY_DELAYS[0]

        clock.move_to(START + timedelta(seconds=20))
        replayed = api_for(subscriber).post(
            f"/api/v1/webhooks/events/{event.public_id}/replay"
        )
        assert replayed.json()["delivered"] is False
        assert Delivery.objects.get(event=event).next_attempt_at == first_retry

        clock.move_to(first_retry)
        services.deliver_due()  # scheduled attempt 2, the schedule's second

    items = failed_items(subscriber)

    assert listed(items) == [
        ("scheduled", 2, iso_utc(first_retry + RETRY_DELAYS[1])),
        ("replay", 1, None),
        ("scheduled", 1, iso_utc(first_retry)),
    ]
    assert {item["event_id"] for item in items} == {event.public_id}
    assert Delivery.objects.get(event=event).attempts == 3
    # docs/webhooks.md shows this very story (its ids, URL and latencies aside).
    [example] = [
        json.loads(block)
        for block in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.S)
        if '"trigger"' in block
    ]
    same = ("attempt", "trigger", "status_code", "error", "attempted_at")
    assert [
        {key: item[key] for key in (*same, "next_attempt_at")} for item in items
    ] == [
        {key: item[key] for key in (*same, "next_attempt_at")}
        for item in example["data"]
    ]
    assert [list(item) for item in example["data"]] == [list(item) for item in items]
    assert example["total"] == len(items)


def test_replays_count_on_from_the_events_previous_replays(subscriber, receiver):
    receiver.status = 500
    event = emit(subscriber)
    services.deliver_due()

    for _ in range(2):
        services.event_replay(event=event)

    numbers = [
        (attempt.trigger, attempt.attempt)
        for attempt in event.attempts.order_by("attempted_at", "id")
    ]
    assert numbers == [("scheduled", 1), ("replay", 1), ("replay", 2)]


def test_a_test_event_is_recorded_as_a_test_attempt_without_storing_the_event(
    subscriber, receiver
):
    receiver.answer(200, 500)
    api = api_for(subscriber)

    delivered = api.post("/api/v1/webhooks/test", {}, format="json")
    failed = api.post("/api/v1/webhooks/test", {}, format="json")

    assert (delivered.json()["delivered"], failed.json()["delivered"]) == (True, False)
    sent = [json.loads(request.body)["eventId"] for request in receiver.received]
    tests = DeliveryAttempt.objects.filter(trigger="test").order_by("id")
    assert [(t.test_event_id, t.attempt, t.delivered) for t in tests] == [
        (sent[0], 1, True),
        (sent[1], 1, False),
    ]
    assert not Event.objects.exists()
    [item] = failed_items(subscriber)
    assert item == {
        "id": tests[1].public_id,
        "livemode": True,
        "event_id": sent[1],
        "event_type": "webhook.test",
        "url": receiver.url,
        "attempt": 1,
        "trigger": "test",
        "status_code": 500,
        "error": "HTTP 500",
        "latency_ms": tests[1].latency_ms,
        "attempted_at": iso_utc(tests[1].attempted_at),
        "next_attempt_at": None,
    }
    assert failed_items(subscriber, event_id=sent[1]) == [item]
    assert failed_items(subscriber, event_id=sent[0]) == []
    # Its event is not stored: there is nothing to replay.
    replay = api.post(f"/api/v1/webhooks/events/{sent[1]}/replay")
    assert replay.status_code == 404


def test_a_refused_test_url_records_nothing(subscriber, settings):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False

    response = api_for(subscriber).post(
        "/api/v1/webhooks/test",
        {"webhook_url": "https://127.0.0.1/hooks"},
        format="json",
    )

    assert response.status_code == 400
    assert not DeliveryAttempt.objects.exists()


def test_the_dashboard_shows_what_sent_each_attempt(subscriber, receiver):
    receiver.status = 502
    event = emit(subscriber)
    services.deliver_due()
    services.event_replay(event=event)
    client = sign_in(Client(), subscriber)

    test_page = client.post(LOG).content.decode()
    event_page = client.get(f"{LOG}events/{event.public_id}/").content.decode()

    # The log: the latest attempt's trigger, and the recent tests.
    assert 'data-testid="last-trigger">Replay</span>: HTTP 502' in test_page
    [test] = DeliveryAttempt.objects.filter(trigger="test")
    assert f'<tr id="{test.public_id}" data-trigger="test">' in test_page
    # The event: each attempt under its trigger, numbered within it.
    rows = [
        (attempt.public_id, attempt.trigger)
        for attempt in event.attempts.order_by("attempted_at", "id")
    ]
    assert [trigger for _, trigger in rows] == ["scheduled", "replay"]
    for public_id, trigger in rows:
        assert (
            f'<tr id="{public_id}" data-trigger="{trigger}">\n'
            f"        <td>{trigger.capitalize()}</td>\n"
            "        <td>1</td>"
        ) in event_page
    # Only the scheduled attempt names the retry.
    assert event_page.count("retry at") == 1
    # A test attempt's link (endpoint 23's id) opens its line in the log.
    found = client.get(f"{LOG}deliveries/{test.public_id}/")
    assert found.status_code == 302
    assert found["Location"] == f"{LOG}#{test.public_id}"


def test_attempts_made_before_triggers_numbered_their_own_are_renumbered(
    subscriber, receiver
):
    event = emit(subscriber)
    stamp = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def old_row(number, trigger):
        return DeliveryAttempt.objects.create(
            event=event,
            merchant=subscriber,
            attempt=number,
            trigger=trigger,
            url=receiver.url,
            delivered=False,
            error="HTTP 500",
            latency_ms=5,
            attempted_at=stamp + timedelta(minutes=number),
        )

    # As before: one sequence for all, the schedule's trigger named `schedule`.
    old_row(1, "schedule")
    old_row(2, "replay")
    old_row(3, "schedule")
    number_by_trigger = import_module(
        "webhooks.migrations.0002_delivery_attempt_trigger"
    ).number_by_trigger

    number_by_trigger(django_apps, None)

    assert [
        (attempt.trigger, attempt.attempt)
        for attempt in event.attempts.order_by("attempted_at")
    ] == [("scheduled", 1), ("replay", 1), ("scheduled", 2)]


@pytest.mark.postgres
@pytest.mark.skipif(
    not django_settings.IS_POSTGRES,
    reason="needs PostgreSQL: SQLite lets one writer in at a time",
)
@pytest.mark.django_db(transaction=True)
def test_replays_of_one_event_at_once_take_one_number_each(receiver):
    merchant = make_subscriber(receiver.url)
    receiver.status = 500
    event = emit(merchant)
    services.deliver_due()
    # Both replays are on the wire together before either is recorded.
    together = threading.Barrier(2, timeout=60)
    receiver.on_request = together.wait

    results = run_concurrently(lambda: services.event_replay(event=event), 2)

    assert [r for r in results if isinstance(r, Exception)] == []
    replays = DeliveryAttempt.objects.filter(event=event, trigger="replay")
    assert sorted(replays.values_list("attempt", flat=True)) == [1, 2]
    assert Delivery.objects.get(event=event).attempts == 3
