"""A merchant uses the webhook, payment link, plan and wallet pages of the
dashboard in a real browser (issue 8, DESIGN §12).

Each test asserts on what a person sees and saves screenshots of every page to
tests/screenshots/<test name>/.
"""

import hashlib
import hmac
import json
import re
from datetime import timedelta

import pytest
import time_machine
from django.db import transaction
from django.utils import timezone
from playwright.sync_api import expect

from merchants.models import Merchant
from webhooks.services import emit_event

from ..conftest import make_merchant_with_key
from ..factories import MerchantFactory
from ..installments.conftest import make_active_plan
from ..payments.conftest import credit_wallet
from .conftest import PHONE, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def merchant():
    return MerchantFactory(
        business_name="Ada's Electronics",
        status=Merchant.Status.ACTIVE,
        api_access_enabled=True,
    )


@pytest.fixture
def service(settings, live_server):
    """The live server is the service's public address; webhooks may go to plain
    http on 127.0.0.1 (the local receiver), as in local development."""
    settings.BASE_URL = live_server.url
    settings.CONSUMER_URL = live_server.url
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    settings.WEBHOOK_ALLOW_HTTP = True
    # The settings form asks for https unless DEBUG (DESIGN §10); the receiver
    # is plain http.
    settings.DEBUG = True
    return live_server.url


def field(page, name):
    return page.locator(f'[data-field="{name}"]')


def open_section(page, name):
    page.get_by_role("navigation", name="Dashboard").get_by_role(
        "link", name=name, exact=True
    ).click()


def emit_committed(merchant, event_type, reference):
    """An event as the services emit it: delivered once the transaction commits
    (the test settings run tasks inline)."""
    with transaction.atomic():
        return emit_event(
            merchant=merchant,
            event_type=event_type,
            data={
                "resourceType": "payment_plan",
                "resourceId": "plan_demo",
                "orderReference": reference,
            },
        )


def test_a_merchant_sends_a_test_event_reads_the_log_and_replays_an_event(
    page, screenshot, service, receiver, merchant
):
    sign_in(page, merchant)
    open_section(page, "Webhooks")
    expect(page.get_by_role("heading", name="Webhooks", exact=True)).to_be_visible()
    expect(page.get_by_test_id("event-log-empty")).to_contain_text("No events yet.")
    page.get_by_role("button", name="Send test event").click()
    expect(page.get_by_test_id("test-result")).to_contain_text(
        "Set a webhook URL and a signing secret in Settings first."
    )
    screenshot("webhooks-not-set-up")

    page.get_by_role("link", name="Change the URL or secret in Settings").click()
    page.get_by_label("Webhook URL").fill(receiver.url)
    page.get_by_role("button", name="Save webhook URL").click()
    expect(page.get_by_text("Webhook URL saved.")).to_be_visible()
    page.get_by_role("button", name="Generate secret").click()
    secret = page.locator("#new-webhook-secret").inner_text().strip()

    open_section(page, "Webhooks")
    expect(page.get_by_test_id("webhook-url")).to_have_text(receiver.url)
    page.get_by_role("button", name="Send test event").click()
    result = page.get_by_test_id("test-result")
    expect(result).to_contain_text("Test event delivered")
    expect(page.get_by_test_id("test-result-outcome")).to_have_text("Delivered")
    expect(page.get_by_test_id("test-result-status")).to_have_text("200")
    expect(page).to_have_url(re.compile(r"/dashboard/webhooks/$"))
    screenshot("test-event-delivered")
    (test,) = receiver.received
    assert json.loads(test.body)["eventType"] == "webhook.test"
    expected = hmac.new(secret.encode(), test.body, hashlib.sha256).hexdigest()
    assert test.headers["x-service-signature"] == expected

    receiver.answer(500)
    page.get_by_role("button", name="Send test event").click()
    expect(page.get_by_test_id("test-result-outcome")).to_have_text("Not delivered")
    expect(page.get_by_test_id("test-result-error")).to_have_text("HTTP 500")
    screenshot("test-event-failed")

    # Real events: one delivered at once, one refused by the receiver (retrying).
    delivered = emit_committed(merchant, "payment.success", "ORD-1001")
    receiver.answer(503)
    retrying = emit_committed(merchant, "goods.release", "ORD-1002")
    page.reload()
    log = page.get_by_test_id("event-log")
    expect(log.locator(f'[data-event-id="{delivered.public_id}"]')).to_contain_text(
        "Delivered"
    )
    retry_row = log.locator(f'[data-event-id="{retrying.public_id}"]')
    expect(retry_row).to_contain_text("Pending")
    expect(retry_row).to_contain_text("HTTP 503")
    screenshot("delivery-log")

    page.get_by_label("Delivery status").select_option("delivered")
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(r"status=delivered"))
    expect(page.get_by_test_id("event-log").locator("tbody tr")).to_have_count(1)
    expect(page.get_by_test_id("event-count")).to_have_text(
        "1 event matches these filters."
    )
    screenshot("delivery-log-filtered")
    page.get_by_role("link", name="Clear filters").click()

    page.get_by_role(
        "button", name=f"Replay goods.release {retrying.public_id}"
    ).click()
    expect(page.get_by_role("status").filter(has_text="Replayed")).to_contain_text(
        f"Replayed goods.release {retrying.public_id}: delivered (HTTP 200 in"
    )
    expect(retry_row).to_contain_text("Delivered")
    screenshot("replayed")

    page.get_by_role("link", name="goods.release").click()
    expect(page.get_by_role("heading", name="goods.release")).to_be_visible()
    attempts = page.get_by_test_id("attempts").locator("tbody tr")
    expect(attempts).to_have_count(2)
    expect(attempts.nth(0)).to_contain_text("Failed")
    expect(attempts.nth(0)).to_contain_text("503")
    expect(attempts.nth(1)).to_contain_text("Replay")
    expect(attempts.nth(1)).to_contain_text("Delivered")
    expect(page.get_by_text('"orderReference": "ORD-1002"')).to_be_visible()
    screenshot("event-detail")
    assert receiver.event_ids()[-1] == retrying.public_id


def test_a_merchant_creates_copies_and_toggles_a_payment_link(
    page, screenshot, service, merchant
):
    sign_in(page, merchant)
    open_section(page, "Payment links")
    expect(page.get_by_test_id("links-empty")).to_be_visible()
    screenshot("links-empty")

    page.get_by_label("Title").fill("Ergonomic office chair")
    page.get_by_label("Amount (₦)").fill("50")
    page.get_by_label("Description (optional)").fill("Black, with armrests")
    page.get_by_label("Redirect URL (optional)").fill("ftp://shop.example.com")
    page.get_by_role("button", name="Create link").click()
    expect(field(page, "amount").locator(".field-error")).to_have_text(
        "Enter an amount between ₦100.00 and ₦10,000,000.00."
    )
    expect(field(page, "redirect_url").locator(".field-error")).to_have_text(
        "redirect_url must be an http(s) URL."
    )
    expect(page.get_by_label("Title")).to_have_value("Ergonomic office chair")
    screenshot("link-refused")
    page.get_by_label("Amount (₦)").fill("45,000")
    page.get_by_label("Redirect URL (optional)").fill("https://shop.example.com/thanks")
    page.get_by_role("button", name="Create link").click()

    link = merchant.payment_links.get()
    public_url = f"{service}/l/{link.slug}"
    expect(page.get_by_role("status")).to_contain_text(
        f"Payment link “Ergonomic office chair” created: share {public_url}"
    )
    row = page.locator(f'[data-link-id="{link.public_id}"]')
    expect(row).to_contain_text("₦45,000.00")
    expect(row).to_contain_text("Active")
    copy = row.get_by_role("button", name="Copy the URL of Ergonomic office chair")
    copy.click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == public_url
    screenshot("link-created")

    page.once("dialog", lambda dialog: dialog.accept())
    row.get_by_role("button", name="Deactivate Ergonomic office chair").click()
    expect(row).to_contain_text("Inactive")
    expect(page.get_by_role("status")).to_contain_text(
        "“Ergonomic office chair” is inactive"
    )
    screenshot("link-deactivated")
    link.refresh_from_db()
    assert not link.is_active

    visitor = page.context.new_page()
    visitor.goto(public_url)
    expect(
        visitor.get_by_role("heading", name="This payment link is no longer available")
    ).to_be_visible()
    visitor.close()

    row.get_by_role("link", name="Ergonomic office chair").click()
    expect(page.get_by_test_id("link-status")).to_have_text("Inactive")
    page.get_by_role("button", name="Activate Ergonomic office chair").click()
    expect(page.get_by_test_id("link-status")).to_have_text("Active")
    screenshot("link-page")
    link.refresh_from_db()
    assert link.is_active

    page.set_viewport_size(PHONE)
    open_section(page, "Payment links")
    screenshot("links-phone")


def test_a_merchant_finds_a_plan_by_order_reference_and_opens_it(
    page, screenshot, service
):
    owner = make_merchant_with_key(business_name="Ada's Furniture")
    plan = make_active_plan(owner, order_reference="ORD-CHAIR-1001").plan
    make_active_plan(owner, email="bola@mail.example.com", order_reference="ORD-2002")
    installments = list(plan.installments.order_by("sequence"))

    sign_in(page, owner.merchant)
    open_section(page, "Plans")
    expect(page.get_by_test_id("plans").locator("tbody tr")).to_have_count(2)
    screenshot("plans")

    page.get_by_label("Order reference").fill("chair")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_test_id("plans").locator("tbody tr")).to_have_count(1)
    expect(page.get_by_test_id("plan-count")).to_have_text("1 plan found.")
    screenshot("plans-searched")

    page.get_by_role("link", name="ORD-CHAIR-1001").click()
    expect(page).to_have_url(re.compile(rf"/dashboard/plans/{plan.public_id}/$"))
    expect(page.get_by_role("heading", name="Plan ORD-CHAIR-1001")).to_be_visible()
    expect(page.get_by_test_id("plan-status")).to_have_text("Active")
    rows = page.get_by_test_id("installments").locator("tbody tr")
    expect(rows).to_have_count(len(installments))
    for row, installment in zip(rows.all(), installments, strict=True):
        expect(row).to_contain_text("Scheduled")
        expect(row).to_contain_text(f"{installment.due_date:%-d %b %Y}")
        whole, kobo = divmod(installment.amount, 100)
        expect(row).to_contain_text(f"₦{whole:,}.{kobo:02d}")
    deposit = page.get_by_test_id("deposit-attempts")
    expect(deposit).to_contain_text("Succeeded")
    whole, kobo = divmod(plan.deposit_amount, 100)
    expect(page.get_by_test_id("plan-paid")).to_have_text(f"₦{whole:,}.{kobo:02d}")
    screenshot("plan")

    page.set_viewport_size(PHONE)
    page.reload()
    screenshot("plan-phone")


def test_a_merchant_reads_the_wallet_chart_and_sets_the_payout_account(
    page, screenshot, service, merchant
):
    now = timezone.now()
    for days_ago, amount in [(80, 1_200_000), (40, 450_000), (12, 2_000_000)]:
        with time_machine.travel(now - timedelta(days=days_ago), tick=False):
            credit_wallet(merchant, amount)
    credit_wallet(merchant, 1_500_000)
    credit_wallet(merchant, 600_000)

    sign_in(page, merchant)
    open_section(page, "Wallet")
    expect(page.get_by_role("heading", name="Wallet", exact=True)).to_be_visible()
    # 57,500 naira collected, 2.5% fee: 56,062.50 available.
    expect(page.get_by_test_id("available-balance")).to_have_text("₦56,062.50")
    expect(page.get_by_test_id("pending-payout")).to_have_text("₦0.00")
    expect(page.get_by_test_id("total-paid-out")).to_have_text("₦0.00")
    expect(page.get_by_test_id("chart-total")).to_have_text("₦57,500.00")
    chart = page.get_by_test_id("collections-chart")
    expect(chart.locator("rect.chart-bar")).to_have_count(90)
    today = chart.locator("rect.chart-bar").last
    assert today.get_attribute("height") == "100.0"
    expect(today.locator("title")).to_contain_text("₦21,000.00 collected (2 payments)")
    assert chart.bounding_box()["width"] > 600
    expect(page.get_by_test_id("transactions").locator("tbody tr")).to_have_count(5)
    expect(page.get_by_test_id("payout-account-missing")).to_be_visible()
    screenshot("wallet")

    page.get_by_role("link", name="Add payout account").click()
    page.get_by_role("button", name="Save payout account").click()
    expect(field(page, "bank_code").locator(".field-error")).to_have_text(
        "This field is required."
    )
    page.get_by_label("Bank").select_option(label="Guaranty Trust Bank")
    page.get_by_label("Account number").fill("01234")
    page.get_by_role("button", name="Save payout account").click()
    expect(field(page, "account_number").locator(".field-error")).to_have_text(
        "A NUBAN account number has exactly 10 digits."
    )
    screenshot("payout-account-refused")
    page.get_by_label("Account number").fill("0123456780")
    page.get_by_role("button", name="Save payout account").click()

    expect(page).to_have_url(re.compile(r"/dashboard/wallet/$"))
    expect(page.get_by_role("status")).to_contain_text(
        "the bank says it belongs to SANDBOX ACCOUNT 6780"
    )
    expect(page.get_by_test_id("payout-account-name")).to_have_text(
        "SANDBOX ACCOUNT 6780"
    )
    expect(page.get_by_test_id("payout-account")).to_contain_text("Guaranty Trust Bank")
    screenshot("wallet-with-payout-account")

    page.set_viewport_size(PHONE)
    page.reload()
    screenshot("wallet-phone")
