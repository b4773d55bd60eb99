"""Staff approve a merchant in the Django admin; the merchant's API works next
(issue 8, DESIGN §5, §12)."""

import re

import pytest
import requests
from django.contrib.auth import get_user_model
from django.core import mail
from playwright.sync_api import expect

from ..factories import PASSWORD, MerchantFactory

pytestmark = pytest.mark.django_db(transaction=True)

STAFF_PASSWORD = "Staff-Passw0rd-1"


def run_action(page, merchant, action_label, confirm_label, screenshot, name):
    page.goto("/admin/merchants/merchant/")
    row = page.locator("#result_list tr", has_text=merchant.email)
    row.get_by_role("checkbox").check()
    page.locator("select[name=action]").select_option(label=action_label)
    page.get_by_role("button", name="Go").click()
    expect(page.get_by_text(f"{action_label} these merchants?")).to_be_visible()
    expect(page.get_by_text(merchant.public_id)).to_be_visible()
    screenshot(f"{name}-confirm")
    page.get_by_role("button", name=confirm_label).click()


def test_staff_approve_and_enable_api_access_then_the_merchants_api_call_works(
    page, screenshot, live_server
):
    get_user_model().objects.create_superuser(
        "staff", "staff@installments.ng", STAFF_PASSWORD
    )
    merchant = MerchantFactory(business_name="Bisi Fashion")
    api = f"{live_server.url}/api/v1"
    login = requests.post(
        f"{api}/auth/merchant/login",
        json={"email": merchant.email, "password": PASSWORD},
        timeout=60,
    )
    jwt = {"Authorization": f"Bearer {login.json()['data']['access']}"}
    rotate = f"{api}/merchant/{merchant.public_id}/rotate-api-key"
    before = requests.post(rotate, json={}, headers=jwt, timeout=60)
    assert before.status_code == 403
    assert before.json()["error"]["code"] == "merchant_not_active"

    page.goto("/admin/")
    page.get_by_label("Username").fill("staff")
    page.get_by_label("Password").fill(STAFF_PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.goto("/admin/merchants/merchant/?status__exact=pending")
    expect(page.locator("#result_list")).to_contain_text("Bisi Fashion")
    screenshot("pending-merchants")

    run_action(page, merchant, "Approve", "Yes, approve", screenshot, "approve")
    expect(page.get_by_text("Approved 1 merchant(s).")).to_be_visible()
    run_action(
        page,
        merchant,
        "Enable API access",
        "Yes, enable api access",
        screenshot,
        "enable-api-access",
    )
    expect(page.get_by_text("Enabled API access for 1 merchant(s).")).to_be_visible()
    page.goto("/admin/merchants/merchant/?status__exact=active")
    row = page.locator("#result_list tr", has_text=merchant.email)
    expect(row.get_by_role("cell", name="Active", exact=True)).to_be_visible()
    expect(row.get_by_role("img", name="True")).to_be_visible()  # API access
    screenshot("approved")

    after = requests.post(rotate, json={"name": "first"}, headers=jwt, timeout=60)

    assert after.status_code == 201
    assert re.match(r"^service_live_sk_", after.json()["data"]["apiKey"])
    subjects = [message.subject for message in mail.outbox]
    assert "Your merchant account is approved" in subjects
    assert "API access enabled" in subjects
