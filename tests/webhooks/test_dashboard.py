"""The dashboard's webhook pages: delivery log, filters, event detail, replay and
"send test event" (issue 8, DESIGN §10, §12)."""

import json
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from webhooks import services
from webhooks.models import Delivery, DeliveryAttempt, Event

from ..factories import MerchantFactory
from .conftest import SECRET, make_subscriber
from .events import emit, settle

pytestmark = pytest.mark.django_db

LOG = "/dashboard/webhooks/"


def shown_event_ids(page: str) -> list[str]:
    return re.findall(r'data-event-id="(evt_\w+)"', page)


def test_the_log_lists_the_merchants_events_newest_first_with_their_status(
    dashboard_for, merchant_active
):
    first = emit(merchant_active, "payment.success")
    second = emit(merchant_active, "goods.release")
    settle(first, Delivery.Status.DELIVERED)
    emit(MerchantFactory(), "payment.success")  # someone else's

    page = dashboard_for(merchant_active).get(LOG).content.decode()

    assert shown_event_ids(page) == [second.public_id, first.public_id]
    assert "badge-delivered" in page
    assert "badge-pending" in page
    assert "2 events." in page


def test_the_log_filters_by_event_type_and_delivery_status(
    dashboard_for, merchant_active
):
    paid = emit(merchant_active, "payment.success")
    released = emit(merchant_active, "goods.release")
    failed = emit(merchant_active, "goods.release")
    settle(paid, Delivery.Status.DELIVERED)
    settle(released, Delivery.Status.DELIVERED)
    settle(failed, Delivery.Status.FAILED)
    pending = emit(merchant_active, "payment.failed")
    client = dashboard_for(merchant_active)

    def shown(query):
        return shown_event_ids(client.get(f"{LOG}?{query}").content.decode())

    assert shown("event_type=goods.release") == [failed.public_id, released.public_id]
    assert shown("status=delivered") == [released.public_id, paid.public_id]
    assert shown("status=failed") == [failed.public_id]
    assert shown("status=pending") == [pending.public_id]
    assert shown("event_type=goods.release&status=delivered") == [released.public_id]
    empty = client.get(f"{LOG}?event_type=transfer.success").content.decode()
    assert "No events match these filters." in empty


def test_an_unknown_filter_value_is_explained_next_to_its_field(
    dashboard_for, merchant_active
):
    event = emit(merchant_active)

    response = dashboard_for(merchant_active).get(f"{LOG}?status=lost")

    page = response.content.decode()
    assert response.status_code == 200
    field = page[page.index('data-field="status"') :]
    assert (
        "Select a valid choice. lost is not one of the available choices."
        in (field[: field.index("</div>")])
    )
    assert shown_event_ids(page) == [event.public_id]


def test_the_log_is_paginated_and_the_pages_keep_the_filters(
    dashboard_for, merchant_active
):
    events = [emit(merchant_active, "goods.release") for _ in range(23)]
    emit(merchant_active, "payment.success")
    client = dashboard_for(merchant_active)

    first = client.get(f"{LOG}?event_type=goods.release").content.decode()
    second = client.get(f"{LOG}?event_type=goods.release&page=2").content.decode()

    newest_first = [event.public_id for event in reversed(events)]
    assert shown_event_ids(first) == newest_first[:20]
    assert shown_event_ids(second) == newest_first[20:]
    assert "Page 1 of 2" in first
    assert 'href="?event_type=goods.release&amp;page=2"' in first
    assert 'href="?event_type=goods.release&amp;page=1"' in second


def test_the_event_page_shows_the_body_and_every_attempt(
    dashboard_for, subscriber, receiver, committed
):
    receiver.answer(500)
    with committed():
        event = emit(subscriber)
    services.event_replay(event=event)

    page = dashboard_for(subscriber).get(f"{LOG}events/{event.public_id}/")

    text = page.content.decode()
    assert page.status_code == 200
    attempts = list(
        DeliveryAttempt.objects.filter(event=event).order_by("attempted_at", "id")
    )
    assert [attempt.delivered for attempt in attempts] == [False, True]
    for attempt in attempts:
        assert f'id="{attempt.public_id}"' in text
    assert "HTTP 500" in text
    assert "Replay" in text and "Schedule" in text
    assert "&quot;orderReference&quot;: &quot;o-1&quot;" in text
    assert "badge-delivered" in text


def test_another_merchants_event_or_delivery_is_not_found(
    dashboard_for, subscriber, receiver, committed, merchant_active
):
    with committed():
        event = emit(subscriber)
    attempt = DeliveryAttempt.objects.get(event=event)
    stranger = dashboard_for(merchant_active)
    sent = len(receiver.received)

    assert stranger.get(f"{LOG}events/{event.public_id}/").status_code == 404
    assert stranger.get(f"{LOG}deliveries/{attempt.public_id}/").status_code == 404
    assert stranger.post(f"{LOG}events/{event.public_id}/replay/").status_code == 404
    assert stranger.get(f"{LOG}events/evt_%00x/").status_code == 404
    assert stranger.get(f"{LOG}events/plan_{event.public_id[4:]}/").status_code == 404
    assert len(receiver.received) == sent
    owner = dashboard_for(subscriber)
    found = owner.get(f"{LOG}deliveries/{attempt.public_id}/")
    assert found.status_code == 302
    assert found["Location"] == f"{LOG}events/{event.public_id}/#{attempt.public_id}"


def test_replay_sends_the_event_again_and_says_how_it_went(
    dashboard_for, subscriber, receiver, committed
):
    with committed():
        event = emit(subscriber)
    client = dashboard_for(subscriber)

    response = client.post(
        f"{LOG}events/{event.public_id}/replay/",
        {"next": f"{LOG}?event_type=goods.release"},
    )

    assert response.status_code == 303
    assert response["Location"] == f"{LOG}?event_type=goods.release"
    assert receiver.event_ids() == [event.public_id, event.public_id]
    assert receiver.received[0].body == receiver.received[1].body
    replay = DeliveryAttempt.objects.get(event=event, trigger="replay")
    assert replay.attempt == 1  # the first replay; the scheduled attempt is 1 too
    page = client.get(response["Location"]).content.decode()
    assert f"Replayed goods.release {event.public_id}: delivered (HTTP 200 in" in page


def test_a_failed_replay_is_reported_as_an_error(
    dashboard_for, subscriber, receiver, committed
):
    with committed():
        event = emit(subscriber)
    receiver.answer(503)
    client = dashboard_for(subscriber)

    response = client.post(f"{LOG}events/{event.public_id}/replay/")

    assert response["Location"] == f"{LOG}events/{event.public_id}/"
    page = client.get(response["Location"]).content.decode()
    assert "message-error" in page
    assert "not delivered: HTTP 503" in page


def test_replay_refuses_a_next_url_on_another_site(
    dashboard_for, subscriber, receiver, committed
):
    with committed():
        event = emit(subscriber)

    response = dashboard_for(subscriber).post(
        f"{LOG}events/{event.public_id}/replay/", {"next": "https://evil.example/"}
    )

    assert response["Location"] == f"{LOG}events/{event.public_id}/"


def test_replay_takes_only_a_post(dashboard_for, merchant_active):
    event = emit(merchant_active)

    response = dashboard_for(merchant_active).get(
        f"{LOG}events/{event.public_id}/replay/"
    )

    assert response.status_code == 405


def test_send_test_event_posts_a_signed_test_event_to_the_saved_url(
    dashboard_for, subscriber, receiver
):
    response = dashboard_for(subscriber).post(LOG)

    page = response.content.decode()
    assert response.status_code == 200
    assert "Test event delivered" in page
    assert 'data-testid="test-result-status">200<' in page
    assert f'data-replace-url="{LOG}"' in page
    (received,) = receiver.received
    assert json.loads(received.body)["eventType"] == "webhook.test"
    assert received.headers["x-service-signature"]
    assert not Event.objects.filter(merchant=subscriber).exists()
    assert SECRET not in page


def test_send_test_event_reports_the_failure_and_its_error(
    dashboard_for, subscriber, receiver
):
    receiver.answer(500)

    page = dashboard_for(subscriber).post(LOG).content.decode()

    assert "Test event not delivered" in page
    assert 'data-testid="test-result-status">500<' in page
    assert 'data-testid="test-result-error">HTTP 500<' in page


def test_send_test_event_reports_no_answer_when_the_connection_is_refused(
    dashboard_for, receiver
):
    url = receiver.url
    receiver.close()
    merchant = make_subscriber(url)

    page = dashboard_for(merchant).post(LOG).content.decode()

    assert "Test event not delivered" in page
    assert 'data-testid="test-result-status">no HTTP answer<' in page
    assert "connection refused" in page


def test_send_test_event_asks_for_a_url_and_secret_first(
    dashboard_for, merchant_active
):
    response = dashboard_for(merchant_active).post(LOG)

    assert response.status_code == 400
    assert (
        "Set a webhook URL and a signing secret in Settings first."
        in response.content.decode()
    )


def test_send_test_event_explains_a_url_the_guard_refuses(dashboard_for, db):
    merchant = make_subscriber("https://127.0.0.1/hooks")  # private networks off

    response = dashboard_for(merchant).post(LOG)

    assert response.status_code == 400
    assert "The webhook URL is not allowed" in response.content.decode()


def test_the_log_and_its_csv_use_the_same_word_for_a_delivery_being_retried(
    dashboard_for, merchant_active
):
    """Issue 25 item 11: a pending delivery with failed attempts was "Retrying"
    in the log and `pending` in its CSV. Both say pending (the API's word, and
    the filter's); the attempts and the next attempt say it is being retried."""
    event = emit(merchant_active)
    Delivery.objects.filter(event=event).update(
        attempts=2, next_attempt_at=timezone.now() + timedelta(minutes=5)
    )
    client = dashboard_for(merchant_active)

    page = client.get(LOG).content.decode()
    csv = b"".join(client.get(f"{LOG}deliveries.csv").streaming_content).decode()

    row = page[page.index(f'data-event-id="{event.public_id}"') :]
    row = row[: row.index("</tr>")]
    assert '<span class="badge badge-pending">Pending</span>' in row
    assert "Retrying" not in page
    [line] = [line for line in csv.splitlines() if line.startswith(event.public_id)]
    assert ",pending,2," in line
    assert shown_event_ids(client.get(f"{LOG}?status=pending").content.decode()) == [
        event.public_id
    ]
