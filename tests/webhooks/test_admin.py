"""Admin: events with their attempts, and a replay action."""

import pytest
from django.contrib.auth import get_user_model

from webhooks import services
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client):
    user = get_user_model().objects.create_superuser("ops", "ops@x.ng", "pw-12345678")
    client.force_login(user)
    return client


def test_admin_shows_an_event_with_its_attempts_and_replays_it(
    staff_client, subscriber, receiver
):
    receiver.answer(500)
    event = services.emit_event(
        merchant=subscriber, event_type="goods.release", data={"resourceId": "plan_1"}
    )
    services.deliver_due()
    attempt = event.attempts.get()

    listing = staff_client.get("/admin/webhooks/event/")
    page = staff_client.get(f"/admin/webhooks/event/{event.pk}/change/")

    assert listing.status_code == 200
    assert event.public_id in listing.content.decode()
    assert page.status_code == 200
    assert attempt.public_id in page.content.decode()
    assert "HTTP 500" in page.content.decode()

    response = staff_client.post(
        "/admin/webhooks/event/",
        {"action": "replay", "_selected_action": [event.pk]},
        follow=True,
    )

    assert response.status_code == 200
    assert "1 delivered, 0 failed" in response.content.decode()
    assert Delivery.objects.get(event=event).status == "delivered"
    assert len(receiver.received) == 2
