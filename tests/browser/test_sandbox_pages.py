"""The sandbox's card page in a real browser, where the Content-Security-Policy
is enforced: a consumer app on another site gets its customer back."""

from urllib.parse import urlsplit

import pytest

from ..checkout.conftest import CARD_OK, register

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_card_page_sends_the_customer_back_to_a_consumer_app_on_another_site(
    page, settings, live_server
):
    # Was: Chromium refused the redirect after the form ("form-action 'self'"),
    # and the customer stayed on the card page.
    settings.BASE_URL = live_server.url
    app = live_server.url.replace("localhost", "127.0.0.1")  # another origin
    assert urlsplit(app).netloc != urlsplit(live_server.url).netloc
    shopper = register("ada@mail.example.com")
    started = shopper.post(
        "/api/v1/payment-methods/initialize-card",
        {"customer_id": shopper.customer_id, "callback_url": f"{app}/demo/"},
    )
    assert started.status_code == 200, started.content
    authorization_url = started.json()["authorization_url"]

    page.goto(urlsplit(authorization_url).path)
    page.get_by_label("Card number").fill(CARD_OK)
    page.get_by_role("button", name="Pay and continue").click()

    page.wait_for_url(f"{app}/demo/?reference=*")
