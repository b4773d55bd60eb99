"""A merchant uses the dashboard in a real browser (issue 8, DESIGN §12).

Each test asserts on what a person sees and saves screenshots of every page.
"""

import re

import pytest
import requests
from django.core import mail
from playwright.sync_api import expect

from merchants.models import Merchant

from ..factories import PASSWORD, MerchantFactory
from .conftest import PHONE, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

KEY = re.compile(r"^service_live_sk_[A-Za-z0-9_-]{40,}$")
SECRET = re.compile(r"^whsec_[A-Za-z0-9_-]{40,}$")


@pytest.fixture
def merchant():
    return MerchantFactory(
        business_name="Ada's Electronics",
        status=Merchant.Status.ACTIVE,
        api_access_enabled=True,
    )


def field(page, name):
    return page.locator(f'[data-field="{name}"]')


def open_section(page, name):
    """Click an entry of the dashboard's navigation."""
    page.get_by_role("navigation", name="Dashboard").get_by_role(
        "link", name=name, exact=True
    ).click()


def test_a_pending_merchant_signs_in_and_sees_the_pending_banner(page, screenshot):
    merchant = MerchantFactory(business_name="Chidi Furniture")

    page.goto("/dashboard/keys/")
    expect(page).to_have_url(re.compile(r"/dashboard/login/\?next="))
    expect(
        page.get_by_role("heading", name="Sign in to your dashboard")
    ).to_be_visible()
    screenshot("sign-in")

    page.get_by_label("Email").fill(merchant.email)
    page.get_by_label("Password").fill("not-the-password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_have_text(
        "The e-mail address or password is incorrect."
    )
    screenshot("sign-in-wrong-password")

    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()

    expect(page).to_have_url(re.compile(r"/dashboard/keys/$"))
    expect(page.get_by_test_id("status-banner")).to_contain_text(
        "Your account is pending approval."
    )
    expect(page.get_by_test_id("key-refusal")).to_contain_text(
        "you can generate a live key once it is approved"
    )
    expect(page.get_by_role("button", name="Generate key")).to_have_count(0)
    screenshot("keys-pending")

    open_section(page, "Overview")
    expect(page.get_by_test_id("account-status")).to_have_text("Pending")
    expect(page.get_by_text("Chidi Furniture").first).to_be_visible()
    screenshot("overview-pending")


def test_a_merchant_rotates_a_key_and_reads_it_once(
    page, screenshot, merchant, live_server
):
    sign_in(page, merchant)
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    expect(page.get_by_test_id("status-banner")).to_have_count(0)
    expect(page.get_by_test_id("account-status")).to_have_text("Active")
    screenshot("overview")

    open_section(page, "API keys")
    expect(page.get_by_text("You have no API key yet.")).to_be_visible()
    screenshot("keys-empty")
    page.get_by_label("Key name (optional)").fill("Production server")
    page.get_by_role("button", name="Generate key").click()

    shown = page.locator("#new-api-key")
    expect(shown).to_be_visible()
    expect(page.get_by_text("We show it only this once.")).to_be_visible()
    first_key = shown.inner_text().strip()
    assert KEY.match(first_key)
    page.get_by_role("button", name="Copy").click()
    expect(page.get_by_role("button", name="Copied")).to_be_visible()
    assert page.evaluate("navigator.clipboard.readText()") == first_key
    screenshot("key-shown-once")
    history_url = (
        f"{live_server.url}/api/v1/merchant/{merchant.public_id}/api-key/history"
    )
    works = requests.get(
        history_url, headers={"Authorization": f"Bearer {first_key}"}, timeout=60
    )
    assert works.status_code == 200

    page.reload()
    expect(page).to_have_url(re.compile(r"/dashboard/keys/$"))
    expect(page.locator("#new-api-key")).to_have_count(0)
    assert first_key not in page.content()
    live = page.get_by_test_id("live-key")
    expect(live).to_contain_text("Production server")
    expect(live).to_contain_text(f"service_live_sk_{first_key[16:20]}...")
    screenshot("keys-after-reload")

    page.get_by_label("Key name (optional)").fill("Rotated")
    page.get_by_role("button", name="Rotate key").click()
    second_key = page.locator("#new-api-key").inner_text().strip()
    assert KEY.match(second_key) and second_key != first_key
    expect(page.get_by_test_id("key-history")).to_contain_text(
        f"service_live_sk_{first_key[16:20]}..."
    )
    expect(page.get_by_test_id("key-history")).to_contain_text("Production server")
    screenshot("key-rotated")
    revoked = requests.get(
        history_url, headers={"Authorization": f"Bearer {first_key}"}, timeout=60
    )
    assert revoked.status_code == 401

    page.set_viewport_size(PHONE)
    open_section(page, "Overview")
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    screenshot("overview-phone")


def test_a_merchant_sets_the_webhook_url_and_regenerates_the_secret(
    page, screenshot, merchant
):
    sign_in(page, merchant)
    open_section(page, "Settings")
    expect(page.get_by_role("heading", name="Settings", exact=True)).to_be_visible()
    screenshot("settings")

    page.get_by_label("Webhook URL").fill("http://shop.example.com/hooks")
    page.get_by_role("button", name="Save webhook URL").click()
    expect(field(page, "webhook_url").locator(".field-error")).to_have_text(
        "The webhook URL must use https."
    )
    screenshot("webhook-url-refused")

    page.get_by_label("Webhook URL").fill("https://shop.example.com/hooks")
    page.get_by_role("button", name="Save webhook URL").click()
    expect(page.get_by_text("Webhook URL saved.")).to_be_visible()
    expect(page.get_by_label("Webhook URL")).to_have_value(
        "https://shop.example.com/hooks"
    )

    page.get_by_role("button", name="Generate secret").click()
    first_secret = page.locator("#new-webhook-secret").inner_text().strip()
    assert SECRET.match(first_secret)
    merchant.refresh_from_db()
    assert merchant.webhook_secret == first_secret
    screenshot("secret-shown-once")

    page.reload()
    expect(page.locator("#new-webhook-secret")).to_have_count(0)
    assert first_secret not in page.content()
    expect(page.get_by_test_id("webhook-secret-status")).to_contain_text(
        f"whsec_{first_secret[6:10]}…"
    )
    screenshot("secret-masked")

    page.once("dialog", lambda dialog: dialog.dismiss())
    page.get_by_role("button", name="Regenerate secret").click()
    expect(page.locator("#new-webhook-secret")).to_have_count(0)
    merchant.refresh_from_db()
    assert merchant.webhook_secret == first_secret

    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Regenerate secret").click()
    second_secret = page.locator("#new-webhook-secret").inner_text().strip()
    assert SECRET.match(second_secret) and second_secret != first_secret
    merchant.refresh_from_db()
    assert merchant.webhook_secret == second_secret
    assert merchant.webhook_url == "https://shop.example.com/hooks"


def test_a_merchant_edits_the_plan_configuration_then_signs_out(
    page, screenshot, merchant
):
    sign_in(page, merchant)
    open_section(page, "Settings")

    page.get_by_label("Weekly", exact=True).check()
    page.get_by_label("Minimum installments").fill("5")
    page.get_by_label("Maximum installments").fill("3")
    page.get_by_label("Minimum deposit (%)").fill("95")
    page.get_by_role("button", name="Save plan configuration").click()

    expect(field(page, "min_deposit_percent").locator(".field-error")).to_have_text(
        "Ensure this value is less than or equal to 90."
    )
    screenshot("plan-deposit-refused")
    page.get_by_label("Minimum deposit (%)").fill("20")
    page.get_by_role("button", name="Save plan configuration").click()
    expect(field(page, "min_installments").locator(".field-error")).to_have_text(
        "The minimum number of installments cannot exceed the maximum (5 > 3)."
    )
    expect(page.get_by_label("Weekly", exact=True)).to_be_checked()
    screenshot("plan-bounds-refused")

    page.get_by_label("Minimum installments").fill("2")
    page.get_by_label("Maximum installments").fill("9")
    page.get_by_label("Release money to your wallet").select_option(
        "after_installments"
    )
    page.get_by_label("Number of installments").fill("2")
    page.get_by_role("button", name="Save plan configuration").click()
    expect(page.get_by_text("Plan configuration saved.")).to_be_visible()
    screenshot("plan-saved")
    merchant.refresh_from_db()
    assert merchant.allowed_schedule_types == ["monthly", "weekly"]
    assert (merchant.min_installments, merchant.max_installments) == (2, 9)
    assert merchant.min_deposit_percent == 20
    assert merchant.release_rule == "after_installments:2"

    open_section(page, "Overview")
    expect(page.get_by_text("after 2 paid installments")).to_be_visible()
    expect(page.get_by_text("2 to 9")).to_be_visible()

    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_text("You are signed out.")).to_be_visible()
    screenshot("signed-out")
    page.goto("/dashboard/settings/")
    expect(
        page.get_by_role("heading", name="Sign in to your dashboard")
    ).to_be_visible()


def test_a_merchant_resets_a_forgotten_password_by_email(page, screenshot, merchant):
    page.goto("/dashboard/login/")
    page.get_by_role("link", name="Forgot your password?").click()
    page.get_by_label("Email").fill(merchant.email)
    screenshot("reset-request")
    page.get_by_role("button", name="Send the reset link").click()
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()
    screenshot("reset-sent")

    [message] = mail.outbox
    link = re.search(r"http://\S+/dashboard/password-reset/\S+/", message.body)[0]
    page.goto(link[link.index("/dashboard/") :])
    expect(page).to_have_url(re.compile(r"/set-password/$"))
    page.get_by_label("New password", exact=True).fill("short")
    page.get_by_label("New password (again)").fill("short")
    page.get_by_role("button", name="Set the new password").click()
    expect(field(page, "new_password").locator(".field-error").first).to_contain_text(
        "This password is too short."
    )
    screenshot("reset-weak-password")
    page.get_by_label("New password", exact=True).fill("Fresh-Passw0rd-2026")
    page.get_by_label("New password (again)").fill("Fresh-Passw0rd-2026")
    page.get_by_role("button", name="Set the new password").click()

    expect(
        page.get_by_text("Your password is reset. Sign in with it now.")
    ).to_be_visible()
    sign_in(page, merchant, "Fresh-Passw0rd-2026")
    expect(page.get_by_role("heading", name="Overview")).to_be_visible()
    page.goto("/dashboard/password/")
    expect(page.get_by_role("heading", name="Change your password")).to_be_visible()
    screenshot("password-change")
