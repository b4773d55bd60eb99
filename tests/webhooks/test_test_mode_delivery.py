"""Test events go to the test webhook only, signed with the test secret (DESIGN
section 21); live events never go there. Real receivers on 127.0.0.1."""

import hashlib
import hmac

import pytest

from merchants import account_settings
from merchants import services as merchant_services
from webhooks import services
from webhooks.models import Delivery

from ..receivers import Receiver
from .conftest import SECRET, make_subscriber

pytestmark = pytest.mark.django_db

TEST_SECRET = "whsec_test_side_0123456789"
DATA = {"resourceType": "payment_plan", "resourceId": "plan_abc", "amount": 1}


@pytest.fixture
def test_receiver(local_network):
    server = Receiver()
    yield server
    server.close()


def signed_with(secret: str, request) -> bool:
    expected = hmac.new(secret.encode(), request.body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(request.headers["x-service-signature"], expected)


def test_each_side_events_reach_only_its_own_webhook(
    receiver, test_receiver, committed
):
    account = make_subscriber(receiver.url)
    account_settings.merchant_update_settings(
        merchant=account,
        test_webhook_url=test_receiver.url,
        test_webhook_secret=TEST_SECRET,
    )
    test_side = merchant_services.test_side_for(account)

    with committed():
        live_event = services.emit_event(
            merchant=account, event_type="payment.success", data=DATA
        )
        test_event = services.emit_event(
            merchant=test_side, event_type="payment.success", data=DATA
        )

    [live] = receiver.received
    [test] = test_receiver.received
    assert live.headers["x-service-event-id"] == live_event.public_id
    assert test.headers["x-service-event-id"] == test_event.public_id
    assert signed_with(SECRET, live) and not signed_with(TEST_SECRET, live)
    assert signed_with(TEST_SECRET, test) and not signed_with(SECRET, test)


def test_a_test_event_with_no_test_webhook_goes_nowhere(receiver, committed):
    account = make_subscriber(receiver.url)
    test_side = merchant_services.test_side_for(account)

    with committed():
        event = services.emit_event(
            merchant=test_side, event_type="payment.success", data=DATA
        )
    services.deliver_due()

    assert receiver.received == []
    assert not Delivery.objects.filter(
        event=event, status=Delivery.Status.DELIVERED
    ).exists()
