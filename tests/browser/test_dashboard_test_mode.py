"""The dashboard's test mode in a real browser (DESIGN section 21,
docs/dashboard.md#test-mode): a pending merchant generates a test key, turns
on "Test data", sees the band on every page and only test plans, and turns it
off again; every page in test mode passes axe-core at 1280x800 and 390x844.
Screenshots: tests/screenshots/test_*test_mode*/ and test_axe_test_mode*/.
"""

import re

import pytest
from playwright.sync_api import expect

from merchants import services as merchant_services

from ..conftest import MerchantWithKey, make_merchant_with_key
from ..factories import MerchantFactory
from ..installments.conftest import make_active_plan
from .axe import SIZES, Audit
from .conftest import PHONE, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

TEST_KEY = re.compile(r"^service_test_sk_[A-Za-z0-9_-]{40,}$")
BAND = "Test data — nothing here moves real money"


def switch(page):
    return page.get_by_role("switch", name="Test data")


def test_a_pending_merchant_builds_against_test_mode(page, screenshot):
    merchant = MerchantFactory(business_name="Chidi Furniture")
    sign_in(page, merchant)
    expect(page.get_by_test_id("build-in-test-mode")).to_contain_text(
        "Build against test mode now."
    )
    expect(switch(page)).to_have_attribute("aria-checked", "false")
    expect(page.get_by_test_id("test-band")).to_have_count(0)
    screenshot("overview-pending")

    page.get_by_test_id("build-in-test-mode").get_by_role(
        "link", name="generate a test key"
    ).click()
    expect(page.get_by_test_id("key-refusal")).to_contain_text("live keys wait for it")
    expect(page.get_by_role("button", name="Generate key")).to_have_count(0)
    page.get_by_label("Name of the test key (optional)").fill("Laptop")
    page.get_by_role("button", name="Generate test key").click()
    shown = page.locator("#new-api-key")
    expect(shown).to_be_visible()
    assert TEST_KEY.match(shown.inner_text().strip())
    screenshot("test-key-shown-once")
    page.reload()
    expect(page.get_by_test_id("test-key")).to_contain_text("Laptop")
    expect(page.get_by_test_id("test-key")).to_contain_text("Test")

    switch(page).click()
    expect(page).to_have_url(re.compile(r"/dashboard/keys/$"))
    expect(page.get_by_test_id("test-band")).to_have_text(BAND)
    expect(switch(page)).to_have_attribute("aria-checked", "true")
    for name in ("Plans", "Wallet", "Webhooks", "Team", "Audit log", "Settings"):
        page.get_by_role("navigation", name="Dashboard").get_by_role(
            "link", name=name, exact=True
        ).click()
        expect(page.get_by_test_id("test-band")).to_be_visible()
    expect(page.get_by_role("heading", name="Test webhook")).to_be_visible()
    # The account stays pending whatever side is shown.
    expect(page.get_by_test_id("status-banner")).to_contain_text("pending approval")
    screenshot("settings-test-mode")

    page.set_viewport_size(PHONE)
    expect(page.get_by_test_id("test-band")).to_be_in_viewport()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot("settings-test-mode-phone")

    switch(page).click()
    expect(page.get_by_test_id("test-band")).to_have_count(0)
    expect(page.get_by_role("heading", name="Live webhook")).to_be_visible()


def test_the_plans_page_shows_one_side_at_a_time(page, screenshot):
    owner = make_merchant_with_key(business_name="Ada's Electronics")
    _, key = merchant_services.api_key_rotate(merchant=owner.merchant, mode="test")
    live = make_active_plan(owner, order_reference="ORD-LIVE-1").plan
    test = make_active_plan(
        MerchantWithKey(merchant=owner.merchant, api_key=key),
        email="bola@mail.example.com",
        order_reference="ORD-TEST-1",
    ).plan
    sign_in(page, owner.merchant)

    page.goto("/dashboard/plans/")
    expect(page.get_by_text(live.order_reference)).to_be_visible()
    expect(page.get_by_text(test.order_reference)).to_have_count(0)
    screenshot("plans-live")

    switch(page).click()
    expect(page.get_by_test_id("test-band")).to_be_visible()
    expect(page.get_by_text(test.order_reference)).to_be_visible()
    expect(page.get_by_text(live.order_reference)).to_have_count(0)
    screenshot("plans-test")


@pytest.fixture(params=list(SIZES))
def audit(request, page, screenshot):
    size = SIZES[request.param]
    page.set_viewport_size(size)
    return Audit(page, size, screenshot)


def test_axe_test_mode_pages(audit):
    owner = make_merchant_with_key(business_name="Ada's Electronics")
    _, key = merchant_services.api_key_rotate(merchant=owner.merchant, mode="test")
    plan = make_active_plan(MerchantWithKey(merchant=owner.merchant, api_key=key)).plan
    page = audit.page
    sign_in(page, owner.merchant)
    switch(page).click()
    expect(page.get_by_test_id("test-band")).to_be_visible()
    for path, name in (
        ("/dashboard/", "overview"),
        ("/dashboard/keys/", "keys"),
        ("/dashboard/settings/", "settings"),
        ("/dashboard/plans/", "plans"),
        (f"/dashboard/plans/{plan.public_id}/", "plan"),
        ("/dashboard/wallet/", "wallet"),
        ("/dashboard/webhooks/", "webhooks"),
        ("/dashboard/links/", "links"),
        ("/dashboard/team/", "team"),
        ("/dashboard/audit-log/", "audit-log"),
    ):
        audit(path, f"test-mode-{name}")
        expect(page.get_by_test_id("test-band")).to_have_text(BAND)
    audit.assert_clean()
