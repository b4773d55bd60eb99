"""A customer checks out in a real browser (issue 6, DESIGN section 11): from a
payment link, through registration, the sandbox's card page and the plan chooser,
to the link's redirectUrl; and the widget in a merchant's page.

The merchant side is played over HTTP against the live server (its API key), and
its webhook receiver is a real HTTP server on 127.0.0.1.
"""

import hashlib
import hmac
import json
import re
import threading
from contextlib import suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from installments.plans.models import PaymentPlan
from payments.ledger.selectors import wallet_available_balance

from ..checkout.conftest import add_card, register
from ..conftest import make_merchant_with_key
from ..factories import PASSWORD
from ..webhooks.conftest import SECRET
from .conftest import AGREE

pytestmark = pytest.mark.django_db(transaction=True)

AMOUNT = 4_500_000  # ₦45,000: tier B, deposit 30% = ₦13,500.00


@pytest.fixture
def service(settings, live_server):
    """The live server is the service's public address (the sandbox's card page
    and payment links are built on it); webhooks may go to 127.0.0.1."""
    settings.BASE_URL = live_server.url
    settings.CONSUMER_URL = live_server.url
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    settings.WEBHOOK_ALLOW_HTTP = True
    return live_server.url


def create_link(service: str, owner, **fields) -> dict:
    response = requests.post(
        f"{service}/api/v1/payment-links",
        json={
            "merchant_id": owner.merchant.public_id,
            "title": "Ergonomic office chair",
            "amount": AMOUNT,
            "currency": "NGN",
            **fields,
        },
        headers={"Authorization": f"Bearer {owner.api_key}"},
        timeout=60,
    )
    assert response.status_code == 201, response.text
    return response.json()["data"]


def verified(receiver) -> list[dict]:
    events = []
    for item in receiver.received:
        expected = hmac.new(SECRET.encode(), item.body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(item.headers["x-service-signature"], expected)
        events.append(json.loads(item.body))
    return events


def test_a_customer_pays_through_a_payment_link_and_lands_on_its_redirect_url(
    page, screenshot, service, receiver
):
    owner = make_merchant_with_key(
        business_name="Ada's Furniture",
        webhook_url=receiver.url,
        webhook_secret=SECRET,
    )
    link = create_link(
        service, owner, redirect_url=f"{service}/demo/?paid=1", description="Black"
    )
    assert link["publicUrl"] == f"{service}/l/{link['slug']}"

    # The payment link opens a fresh checkout.
    page.goto(link["publicUrl"])
    expect(page).to_have_url(re.compile(r"/checkout/fcs_[0-9A-Za-z]+$"))
    expect(page.get_by_text("Ergonomic office chair")).to_be_visible()
    expect(page.get_by_test_id("order-amount")).to_have_text("₦45,000.00")
    screenshot("checkout-sign-in-or-register")

    # A new customer registers.
    new = page.get_by_role("region", name="I'm new here")
    new.get_by_label("Email").fill("ada.browser@mail.example.com")
    new.get_by_label("First name").fill("Ada")
    new.get_by_label("Last name").fill("Obi")
    new.get_by_label("Phone number").fill("+2348012345678")
    new.get_by_label("Password").fill(PASSWORD)
    new.get_by_role("button", name="Create account").click()
    expect(
        page.get_by_text("Signed in as ada.browser@mail.example.com")
    ).to_be_visible()
    expect(page.get_by_test_id("no-methods")).to_be_visible()
    expect(page.get_by_role("button", name="Pay ₦13,500.00 now")).to_be_disabled()
    screenshot("checkout-no-method")

    # The card, through the sandbox's redirect flow.
    page.get_by_role("button", name="Add a card").click()
    expect(page).to_have_url(re.compile(r"/sandbox/authorize/"))
    page.get_by_label("Card number").fill("4084084084084081")
    screenshot("sandbox-card-page")
    page.get_by_role("button", name="Pay and continue").click()
    expect(page).to_have_url(re.compile(r"/checkout/fcs_[0-9A-Za-z]+\?method=pm_"))
    expect(page.get_by_text("Visa •••• 4081 is saved.")).to_be_visible()
    expect(page.get_by_role("radio", name=re.compile("Visa •••• 4081"))).to_be_checked()

    # The live preview follows the choice of installments.
    count = page.get_by_label("Installments after the deposit")
    count.select_option("6")
    expect(page.get_by_test_id("preview-installments").locator("li")).to_have_count(6)
    count.select_option("3")
    installments = page.get_by_test_id("preview-installments").locator("li")
    expect(installments).to_have_count(3)
    expect(installments.first).to_contain_text("₦10,500.00")
    expect(page.get_by_test_id("preview-deposit")).to_have_text("₦13,500.00")
    screenshot("checkout-plan-chosen")

    key_facts = page.get_by_role("region", name="Key facts")
    expect(key_facts.get_by_test_id("kf-deposit")).to_have_text("₦13,500.00")
    expect(key_facts.get_by_test_id("kf-cost-of-credit")).to_have_text("₦0.00")
    page.get_by_label(AGREE).check()
    page.get_by_role("button", name="Pay ₦13,500.00 now").click()

    # The plan with its due dates.
    expect(page.get_by_role("heading", name="Deposit paid")).to_be_visible()
    plan = PaymentPlan.objects.get()
    rows = page.locator("[data-installment]")
    expect(rows).to_have_count(3)
    for index, installment in enumerate(plan.installments.all()):
        expect(rows.nth(index).locator("[data-due-date]")).to_have_attribute(
            "data-due-date", installment.due_date.isoformat()
        )
    screenshot("checkout-done")

    page.get_by_role("link", name="Continue").click()
    expect(page).to_have_url(f"{service}/demo/?paid=1")
    expect(page.get_by_test_id("demo-thanks")).to_be_visible()
    screenshot("redirect-url")

    # The merchant's server heard it, signed; its wallet holds 97.5%.
    events = verified(receiver)
    assert sorted(event["eventType"] for event in events) == [
        "debit.scheduled",
        "debit.scheduled",
        "debit.scheduled",
        "goods.release",
        "payment.success",
    ]
    assert {event["data"].get("orderReference") for event in events} == {
        plan.order_reference
    }
    assert plan.order_reference.startswith(link["id"])
    assert wallet_available_balance(owner.merchant) == 1_350_000 * 975 // 1000


def test_an_inactive_link_shows_it_is_no_longer_available(page, screenshot, service):
    owner = make_merchant_with_key()
    link = create_link(service, owner)
    requests.patch(
        f"{service}/api/v1/payment-links/{link['id']}/toggle",
        json={"is_active": False},
        headers={"Authorization": f"Bearer {owner.api_key}"},
        timeout=60,
    ).raise_for_status()

    response = page.goto(link["publicUrl"])

    assert response.status == 404
    expect(
        page.get_by_role("heading", name="This payment link is no longer available")
    ).to_be_visible()
    screenshot("link-inactive")


def returning_customer_with_card():
    shopper = register("bola@mail.example.com")
    add_card(shopper)
    return shopper


def open_session(service, owner) -> str:
    response = requests.post(
        f"{service}/api/v1/checkout/sessions",
        json={
            "merchant_id": owner.merchant.public_id,
            "amount": AMOUNT,
            "currency": "NGN",
            "title": "Ergonomic office chair",
            "order_reference": "ORD-WIDGET-1",
            "customer_email": "bola@mail.example.com",
        },
        headers={"Authorization": f"Bearer {owner.api_key}"},
        timeout=60,
    )
    assert response.status_code == 201, response.text
    return response.json()["data"]["session_token"]


def sign_in_and_pay(frame) -> None:
    """A returning customer: the e-mail is pre-filled, the card is saved."""
    known = frame.get_by_role("region", name="I have an account")
    expect(known.get_by_label("Email")).to_have_value("bola@mail.example.com")
    known.get_by_label("Password").fill(PASSWORD)
    known.get_by_role("button", name="Sign in").click()
    frame.get_by_label(AGREE).check()
    frame.get_by_role("button", name="Pay ₦13,500.00 now").click()
    expect(frame.get_by_role("heading", name="Deposit paid")).to_be_visible()


def test_the_widget_in_an_iframe_reports_success_and_close(page, screenshot, service):
    owner = make_merchant_with_key()
    returning_customer_with_card()
    token = open_session(service, owner)
    page.goto(f"/demo/?session_token={token}")

    page.get_by_role("button", name="Pay in installments (on this page)").click()
    frame = page.frame_locator("iframe[title='Checkout']")
    sign_in_and_pay(frame)
    plan = PaymentPlan.objects.get()
    log = page.get_by_test_id("event-log")
    expect(log).to_contain_text(
        f'onSuccess {{"sessionToken":"{token}","planId":"{plan.public_id}"}}'
    )
    screenshot("widget-iframe-paid")

    frame.get_by_role("link", name="Continue").click()

    expect(log).to_contain_text("onClose")
    expect(page.locator("iframe[title='Checkout']")).to_have_count(0)
    expect(page).to_have_url(re.compile(r"/demo/\?session_token="))


def test_the_widget_in_a_popup_reports_success_and_close(page, screenshot, service):
    owner = make_merchant_with_key()
    returning_customer_with_card()
    token = open_session(service, owner)
    page.goto(f"/demo/?session_token={token}")

    with page.expect_popup() as opened:
        page.get_by_role("button", name="Pay in installments (popup)").click()
    popup = opened.value
    sign_in_and_pay(popup)
    log = page.get_by_test_id("event-log")
    expect(log).to_contain_text('onSuccess {"sessionToken"')
    screenshot("widget-popup-paid")

    popup.close()

    expect(log).to_contain_text("onClose")


class ShopSite:
    """A merchant's product page on another site (127.0.0.1, while the service is
    `localhost`): it loads the service's widget.js and opens the checkout in
    the widget's iframe."""

    def __init__(self, service: str):
        self.html = b""
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(site.html)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.service = service

    def sell(self, token: str, mode: str = "iframe") -> None:
        self.html = f"""<!doctype html><html lang="en"><head><title>Shop</title>
<script src="{self.service}/widget.js"></script></head><body>
<button type="button" id="buy">Buy on installments</button>
<pre data-testid="event-log" id="log"></pre>
<script>
  document.getElementById("buy").addEventListener("click", function () {{
    var log = document.getElementById("log");
    InstallmentsCheckout.open({{
      sessionToken: "{token}",
      mode: "{mode}",
      onSuccess: function (result) {{
        log.textContent += "onSuccess " + result.planId + "\\n";
      }},
      onClose: function () {{ log.textContent += "onClose\\n"; }}
    }});
  }});
</script></body></html>""".encode()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def shop_site(service):
    site = ShopSite(service)
    yield site
    site.close()


def click_to_close(window, link: str) -> None:
    """Click a link that closes its own window. The window may close before
    Playwright's click returns (seen in CI as TargetClosedError): that is the
    outcome wanted, so any click error passes and only a window that does not
    close fails (the close event is awaited)."""
    with window.expect_event("close"), suppress(PlaywrightError):
        window.get_by_role("link", name=link).click()
    assert window.is_closed()


def test_the_widget_iframe_on_another_site_continues_in_a_window_of_its_own(
    page, screenshot, service, shop_site
):
    # The session cookie is SameSite=Lax (docs/decisions.md): inside a frame of
    # another site it is never sent, and signing in there used to end on a CSRF
    # failure. The frame now offers a window of its own and relays its messages.
    owner = make_merchant_with_key(business_url=shop_site.url)
    returning_customer_with_card()
    token = open_session(service, owner)
    shop_site.sell(token)
    page.goto(f"{shop_site.url}/")

    page.get_by_role("button", name="Buy on installments").click()
    frame = page.frame_locator("iframe[title='Checkout']")
    expect(
        frame.get_by_role("heading", name="Continue in a new window")
    ).to_be_visible()
    screenshot("widget-iframe-other-site")
    with page.expect_popup() as opened:
        frame.get_by_role("link", name="Open the checkout").click()
    popup = opened.value
    sign_in_and_pay(popup)
    plan = PaymentPlan.objects.get()
    log = page.get_by_test_id("event-log")
    expect(log).to_contain_text(f"onSuccess {plan.public_id}")

    click_to_close(popup, "Continue")

    expect(log).to_contain_text("onClose")
    expect(page.locator("iframe[title='Checkout']")).to_have_count(0)


def test_the_widget_popup_on_another_site_reports_success_and_close(
    page, screenshot, service, shop_site
):
    owner = make_merchant_with_key(business_url=shop_site.url)
    returning_customer_with_card()
    token = open_session(service, owner)
    shop_site.sell(token, mode="popup")
    page.goto(f"{shop_site.url}/")

    with page.expect_popup() as opened:
        page.get_by_role("button", name="Buy on installments").click()
    popup = opened.value
    sign_in_and_pay(popup)
    plan = PaymentPlan.objects.get()
    log = page.get_by_test_id("event-log")
    expect(log).to_contain_text(f"onSuccess {plan.public_id}")
    expect(log).not_to_contain_text("onClose")

    click_to_close(popup, "Continue")

    expect(log).to_contain_text("onClose")


def test_a_page_on_another_site_than_the_registered_one_hears_nothing(
    page, service, shop_site
):
    # The checkout's success message carries the session token and the plan id:
    # it goes to the merchant's registered origin (and the service's own pages),
    # never to "*", so a page elsewhere that opens the checkout learns nothing.
    owner = make_merchant_with_key(business_url="https://shop.example.com")
    returning_customer_with_card()
    token = open_session(service, owner)
    shop_site.sell(token, mode="popup")
    page.goto(f"{shop_site.url}/")
    page.evaluate(
        """window.addEventListener("message", function (event) {
             document.getElementById("log").textContent +=
               "message from " + event.origin + "\\n";
           });"""
    )

    with page.expect_popup() as opened:
        page.get_by_role("button", name="Buy on installments").click()
    popup = opened.value
    sign_in_and_pay(popup)
    click_to_close(popup, "Continue")

    log = page.get_by_test_id("event-log")
    expect(log).to_contain_text("onClose")  # the widget saw its window close
    expect(log).not_to_contain_text("message from")
    expect(log).not_to_contain_text("onSuccess")
