"""The deposit by bank transfer or USSD at the hosted checkout, in a real browser
(issue 27, DESIGN section 17): a customer chooses the channel, reads the
account number (or the code to dial), the amount and the deadline off the
deposit's page, copies the number, and once the sandbox says the money landed,
"I have paid: check now" (or the page's own check, checkout.js) shows the plan
active.

At 1280x800 and 390x844, the deposit's page has no serious or critical axe-core
violation and nothing off screen or cut off at phone width (`Audit`, in
tests/browser/axe.py). The sandbox decides when the money lands: the test
calls `sandbox_offline_complete` with the attempt's reference.
"""

import re

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from checkout.services.sessions import session_create
from checkout.transfer import pages as transfer_pages
from installments.deposits.models import DepositAttempt
from installments.plans.models import PaymentPlan
from payments.gateway.services import sandbox_offline_complete

from ..checkout.conftest import add_card, register
from ..conftest import make_merchant_with_key
from ..factories import PASSWORD
from ..installments.conftest import check_ledger
from .axe import SIZES, Audit
from .conftest import AGREE

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "ada@mail.example.com"
DEPOSIT = "₦13,500.00"  # 30% of ₦45,000 (tier B)


@pytest.fixture
def service(settings, live_server):
    settings.BASE_URL = live_server.url
    settings.CONSUMER_URL = live_server.url
    return live_server.url


@pytest.fixture
def refresh_seconds(monkeypatch):
    """The deposit page's meta refresh, long by default so that no reload lands
    in the middle of an audit; `refresh_seconds(1)` makes the next page render
    refresh at once."""

    def set_to(seconds: int) -> None:
        monkeypatch.setattr(transfer_pages, "REFRESH_SECONDS", seconds)

    set_to(3600)
    return set_to


def checkout_signed_in(page, merchant, reference: str) -> str:
    """A returning customer opens a fresh checkout and signs in there."""
    token = session_create(
        merchant=merchant,
        amount=4_500_000,
        currency="NGN",
        title="Ergonomic office chair",
        order_reference=reference,
        customer_email=EMAIL,
    ).session.token
    page.goto(f"/checkout/{token}")
    known = page.get_by_role("region", name="I have an account")
    expect(known.get_by_label("Email")).to_have_value(EMAIL)
    known.get_by_label("Password").fill(PASSWORD)
    known.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text(f"Signed in as {EMAIL}")).to_be_visible()
    return token


def nothing_cut_off(page, width: int) -> None:
    """The account number (or code) and the buttons beside it are whole on
    screen: inside the viewport, not clipped by their box."""
    boxes = page.evaluate(
        """() => [...document.querySelectorAll(
               "[data-testid=deposit-pay-to] .pay-to-value, "
               + "[data-testid=deposit-pay-to] .button, "
               + "[data-testid=deposit-refresh], [data-testid=deposit-amount]")]
             .map(e => {
               const r = e.getBoundingClientRect();
               return {text: e.textContent.trim(), left: r.left, right: r.right,
                       clipped: e.scrollWidth > e.clientWidth + 1};
             })"""
    )
    assert len(boxes) >= 4, boxes
    for box in boxes:
        assert box["left"] >= 0 and box["right"] <= width, box
        assert not box["clipped"], box


@pytest.mark.parametrize("size", list(SIZES))
def test_a_customer_pays_the_deposit_by_bank_transfer_and_sees_the_plan_active(
    page, screenshot, service, refresh_seconds, size
):
    # A merchant with manual collection: the customer keeps no card on file and
    # will pay each installment the same way.
    viewport = SIZES[size]
    page.set_viewport_size(viewport)
    owner = make_merchant_with_key(
        business_name="Ada's Furniture", manual_collection=True
    )
    register(EMAIL)
    token = checkout_signed_in(page, owner.merchant, f"TRANSFER-{size}")

    page.get_by_role("radio", name=re.compile(r"^Bank transfer")).check()
    page.get_by_role("radio", name=re.compile(r"^Nothing: I will pay")).check()
    screenshot("checkout-transfer-chosen")
    page.get_by_label(AGREE).check()
    page.get_by_role("button", name=f"Pay {DEPOSIT} now").click()

    expect(page).to_have_url(re.compile(rf"/checkout/{token}/deposit$"))
    expect(page.get_by_role("heading", name="Transfer the deposit")).to_be_visible()
    attempt = DepositAttempt.objects.get()
    assert attempt.channel == "bank_transfer" and attempt.payment_method is None
    account = page.get_by_test_id("deposit-account")
    expect(account).to_have_text(attempt.account_number)
    expect(page.get_by_test_id("deposit-amount")).to_have_text(DEPOSIT)
    expect(page.get_by_test_id("deposit-bank")).to_have_text(attempt.bank_name)
    deadline = f"{timezone.localtime(attempt.expires_at):%H:%M}"
    expect(page.get_by_test_id("deposit-expires")).to_have_text(deadline)
    # Large enough to read off the screen into a bank's app.
    size_px = float(account.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))
    assert size_px >= 24

    audit = Audit(page, viewport, screenshot)
    audit.check(f"deposit-transfer-{size}")
    audit.assert_clean()
    nothing_cut_off(page, viewport["width"])

    # One tap copies the number, as the bank's app wants it.
    copy = page.get_by_role("button", name="Copy the account number")
    copy.click()
    expect(copy).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == attempt.account_number

    # Before the money lands, checking again shows the same account.
    page.get_by_role("link", name="I have paid: check now").click()
    expect(page.get_by_test_id("deposit-account")).to_have_text(attempt.account_number)

    sandbox_offline_complete(reference=attempt.reference)
    page.get_by_role("link", name="I have paid: check now").click()

    expect(page).to_have_url(re.compile(rf"/checkout/{token}/done$"))
    expect(page.get_by_role("heading", name="Deposit paid")).to_be_visible()
    expect(page.get_by_test_id("plan-status")).to_have_text("active")
    expect(page.get_by_test_id("collection-note")).to_contain_text(
        "You pay each installment yourself"
    )
    plan = PaymentPlan.objects.get()
    assert plan.status == "active" and plan.collection == "manual"
    expect(page.locator("[data-installment]")).to_have_count(plan.installment_count)
    screenshot("checkout-done")

    # The customer's own page of the plan says it too.
    page.goto(f"/account/plans/{plan.public_id}/")
    expect(page.get_by_test_id("manual-collection")).to_contain_text(
        "You pay each installment yourself"
    )
    screenshot("account-plan")
    assert "clean" in check_ledger()


def test_a_customer_pays_the_deposit_by_ussd_and_the_page_moves_on_by_itself(
    page, screenshot, service, refresh_seconds
):
    viewport = SIZES["phone"]
    page.set_viewport_size(viewport)
    owner = make_merchant_with_key(business_name="Ada's Furniture")
    add_card(register(EMAIL))
    token = checkout_signed_in(page, owner.merchant, "USSD-1")

    page.get_by_role("radio", name=re.compile(r"^USSD")).check()
    page.get_by_label("Your bank (USSD)").select_option("737")
    page.get_by_label(AGREE).check()
    page.get_by_role("button", name=f"Pay {DEPOSIT} now").click()

    expect(
        page.get_by_role("heading", name="Dial the code to pay the deposit")
    ).to_be_visible()
    attempt = DepositAttempt.objects.get()
    assert attempt.channel == "ussd" and attempt.ussd_code.startswith("*737*")
    expect(page.get_by_test_id("deposit-ussd")).to_have_text(attempt.ussd_code)
    expect(page.get_by_test_id("deposit-amount")).to_have_text(DEPOSIT)
    expect(page.get_by_test_id("deposit-dial")).to_have_attribute(
        "href", "tel:" + attempt.ussd_code.replace("*", "%2A").replace("#", "%23")
    )
    audit = Audit(page, viewport, screenshot)
    audit.check("deposit-ussd-phone")
    audit.assert_clean()
    nothing_cut_off(page, viewport["width"])

    # The page checks again by itself (its meta refresh, made short here).
    refresh_seconds(1)
    page.get_by_role("link", name="I have paid: check now").click()
    expect(page.get_by_test_id("deposit-ussd")).to_be_visible()
    sandbox_offline_complete(reference=attempt.reference)

    expect(page).to_have_url(re.compile(rf"/checkout/{token}/done$"))
    expect(page.get_by_test_id("plan-status")).to_have_text("active")
    expect(page.get_by_test_id("collection-note")).to_contain_text(
        "Collected automatically"
    )
    assert PaymentPlan.objects.get().collection == "auto"
    screenshot("checkout-done")
    assert "clean" in check_ledger()
