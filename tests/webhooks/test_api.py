"""Endpoints 21 (test), 22 (replay) and 23 (failed attempts)."""

import hashlib
import hmac
import json

import pytest

from config.api.formats import iso_utc
from webhooks import services
from webhooks.models import Delivery

from ..conftest import bearer, customer_jwt, merchant_jwt
from .conftest import SECRET, make_subscriber

pytestmark = pytest.mark.django_db

TEST_URL = "/api/v1/webhooks/test"
FAILED_URL = "/api/v1/webhooks/failed-attempts"


def replay_url(event_id: str) -> str:
    return f"/api/v1/webhooks/events/{event_id}/replay"


def jwt(merchant) -> dict:
    return bearer(merchant_jwt(merchant))


def emit(merchant):
    return services.emit_event(
        merchant=merchant,
        event_type="goods.release",
        data={
            "resourceType": "payment_plan",
            "resourceId": "plan_1",
            "orderReference": "o-1",
        },
    )


# 21 ----------------------------------------------------------------------------


def test_test_endpoint_sends_a_signed_test_event_and_reports_delivery(
    api, subscriber, receiver
):
    response = api.post(
        TEST_URL,
        {"webhook_url": receiver.url, "webhook_secret": "another-secret-0123456789"},
        format="json",
        **jwt(subscriber),
    )

    body = response.json()
    assert response.status_code == 200
    assert body == {
        "ok": True,
        "delivered": True,
        "status_code": 200,
        "latency_ms": body["latency_ms"],
    }
    assert isinstance(body["latency_ms"], int)
    [request] = receiver.received
    envelope = json.loads(request.body)
    assert envelope["eventType"] == "webhook.test"
    assert envelope["merchantId"] == subscriber.public_id
    assert envelope["eventId"].startswith("evt_")
    expected = hmac.new(
        b"another-secret-0123456789", request.body, hashlib.sha256
    ).hexdigest()
    assert request.headers["x-service-signature"] == expected


def test_test_endpoint_defaults_to_the_stored_url_and_secret(api, subscriber, receiver):
    response = api.post(TEST_URL, {}, format="json", **jwt(subscriber))

    assert response.json()["delivered"] is True
    [request] = receiver.received
    expected = hmac.new(SECRET.encode(), request.body, hashlib.sha256).hexdigest()
    assert request.headers["x-service-signature"] == expected


def test_test_endpoint_reports_an_http_failure_with_its_error(
    api, subscriber, receiver
):
    receiver.answer(500)

    response = api.post(TEST_URL, {}, format="json", **jwt(subscriber))

    body = response.json()
    assert response.status_code == 200
    assert body["delivered"] is False
    assert body["status_code"] == 500
    assert body["error"] == "HTTP 500"


def test_test_endpoint_reports_a_timeout_with_a_null_status(
    api, subscriber, receiver, settings
):
    settings.WEBHOOK_TIMEOUT_SECONDS = 0.2
    receiver.status = None

    body = api.post(TEST_URL, {}, format="json", **jwt(subscriber)).json()

    assert body["delivered"] is False
    assert body["status_code"] is None
    assert body["error"] == "timeout after 0.2 s"
    assert body["latency_ms"] >= 200


@pytest.mark.parametrize(
    "url",
    [
        "https://127.0.0.1/hooks",
        "https://10.0.0.1/hooks",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hooks",
        "https://localhost/hooks",
        "http://hooks.example.com/hooks",
    ],
)
def test_test_endpoint_refuses_urls_the_guard_does_not_allow(
    api, merchant_active, settings, url
):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False
    settings.WEBHOOK_ALLOW_HTTP = False

    response = api.post(
        TEST_URL,
        {"webhook_url": url, "webhook_secret": SECRET},
        format="json",
        **jwt(merchant_active),
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "webhook_url_not_allowed"


def test_test_endpoint_needs_a_url_and_a_secret(api, merchant_active):
    response = api.post(TEST_URL, {}, format="json", **jwt(merchant_active))

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"webhook_url", "webhook_secret"}


def test_test_endpoint_refuses_unknown_fields_and_bad_types(api, merchant_active):
    response = api.post(
        TEST_URL,
        {"webhook_url": 12, "webhook_secret": SECRET, "extra": 1},
        format="json",
        **jwt(merchant_active),
    )

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {"webhook_url", "extra"}


@pytest.mark.parametrize(
    "method,path",
    [("post", TEST_URL), ("post", replay_url("evt_x")), ("get", FAILED_URL)],
)
def test_webhook_endpoints_take_only_a_merchant_jwt(
    api, merchant_with_key, customer, method, path
):
    assert getattr(api, method)(path).status_code == 401
    with_key = getattr(api, method)(path, **merchant_with_key.headers)
    assert with_key.status_code == 403
    as_customer = getattr(api, method)(path, **bearer(customer_jwt(customer)))
    assert as_customer.status_code == 403


def test_webhook_endpoints_refuse_a_merchant_that_is_not_active(api, merchant_pending):
    response = api.get(FAILED_URL, **jwt(merchant_pending))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_not_active"


# 22 ----------------------------------------------------------------------------


def test_replay_of_another_merchants_event_is_not_found(api, subscriber, receiver):
    event = emit(subscriber)
    stranger = make_subscriber(receiver.url)

    response = api.post(replay_url(event.public_id), **jwt(stranger))

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert receiver.received == []
    assert api.post(replay_url("evt_unknown"), **jwt(stranger)).status_code == 404


def test_replay_resends_a_delivered_event_with_the_same_body(api, subscriber, receiver):
    event = emit(subscriber)
    services.deliver_due()

    response = api.post(replay_url(event.public_id), **jwt(subscriber))

    assert response.json()["delivered"] is True
    assert response.json()["event_id"] == event.public_id
    first, second = receiver.received
    assert first.body == second.body
    assert first.headers["x-service-event-id"] == second.headers["x-service-event-id"]


def test_a_failed_replay_is_recorded_and_keeps_the_retry_schedule(
    api, subscriber, receiver
):
    receiver.status = 502
    event = emit(subscriber)
    services.deliver_due()
    due = Delivery.objects.get(event=event).next_attempt_at

    response = api.post(replay_url(event.public_id), **jwt(subscriber))

    body = response.json()
    assert response.status_code == 200
    assert (body["delivered"], body["status_code"], body["error"]) == (
        False,
        502,
        "HTTP 502",
    )
    delivery = Delivery.objects.get(event=event)
    assert (delivery.status, delivery.next_attempt_at) == ("pending", due)
    assert delivery.scheduled_attempts == 1
    failed = api.get(FAILED_URL, **jwt(subscriber)).json()
    assert failed["total"] == 2
    # The replay is numbered apart and names no next attempt; the scheduled
    # attempt keeps its number and the retry it scheduled.
    assert [
        (item["trigger"], item["attempt"], item["next_attempt_at"])
        for item in failed["data"]
    ] == [("replay", 1, None), ("scheduled", 1, iso_utc(due))]


# 23 ----------------------------------------------------------------------------


def test_failed_attempts_lists_only_the_merchants_own_and_paginates(
    api, subscriber, receiver
):
    receiver.status = 500
    for _ in range(3):
        emit(subscriber)
    stranger = make_subscriber(receiver.url)
    emit(stranger)
    services.deliver_due()

    mine = api.get(FAILED_URL, {"limit": 2}, **jwt(subscriber)).json()
    theirs = api.get(FAILED_URL, **jwt(stranger)).json()

    assert mine["total"] == 3
    assert len(mine["data"]) == 2
    assert theirs["total"] == 1
    assert theirs["data"][0]["event_id"] != mine["data"][0]["event_id"]
    assert api.get(FAILED_URL, {"limit": 101}, **jwt(subscriber)).status_code == 400


def test_failed_attempts_can_be_narrowed_to_one_event(api, subscriber, receiver):
    receiver.status = 500
    event, _ = emit(subscriber), emit(subscriber)
    services.deliver_due()

    body = api.get(FAILED_URL, {"event_id": event.public_id}, **jwt(subscriber)).json()

    assert body["total"] == 1
    assert body["data"][0]["event_id"] == event.public_id


def test_delivered_attempts_are_not_listed_as_failed(api, subscriber, receiver):
    emit(subscriber)
    services.deliver_due()

    body = api.get(FAILED_URL, **jwt(subscriber)).json()

    assert body == {"ok": True, "data": [], "total": 0}
