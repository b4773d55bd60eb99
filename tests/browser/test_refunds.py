"""After the sale in a real browser (issue 16, DESIGN §14): a merchant refunds
from the dashboard (types the amount, sees where the money goes, confirms, sees
the refund and the wallet below zero) and cancels a plan; a customer pays off
what is left of a plan from /account/.

Screenshots at 1280x800 and 390x844 go to tests/screenshots/<test name>/.
"""

import re

import pytest
from playwright.sync_api import expect

from installments.plans.models import PaymentPlan
from installments.refunds.models import Refund

from ..conftest import make_merchant_with_key
from ..factories import PASSWORD
from ..installments.conftest import (
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
    refund,
    sandbox_refunds_settle,
)
from ..payments.commands import run_payouts
from ..payments.conftest import set_payout_account
from .conftest import PHONE, sign_in

pytestmark = pytest.mark.django_db(transaction=True)

DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture
def service(settings, live_server):
    settings.BASE_URL = live_server.url
    settings.CONSUMER_URL = live_server.url
    return live_server.url


def open_section(page, name):
    page.get_by_role("navigation", name="Dashboard").get_by_role(
        "link", name=name, exact=True
    ).click()


def test_a_merchant_refunds_from_the_dashboard_and_sees_the_wallet_owe(
    page, screenshot, service
):
    owner = make_merchant_with_key(business_name="Ada's Electronics")
    plan = make_active_plan(owner, order_reference="ORD-PHONE-1001").plan
    first = installments_of(plan)[0]
    collect(first.due_date)
    # The deposit and installment 1 were paid out: a refund of them takes the
    # wallet below zero.
    set_payout_account(owner.merchant)
    run_payouts()
    page.set_viewport_size(DESKTOP)

    sign_in(page, owner.merchant)
    page.goto(f"/dashboard/plans/{plan.public_id}/")
    expect(page.get_by_test_id("refundable")).to_have_text("₦2,500.00")
    expect(page.get_by_test_id("refunds-empty")).to_be_visible()
    screenshot("plan")

    page.get_by_label("Amount to refund (₦)").fill("2,000")
    page.get_by_label("Reason").fill("Returned the phone")
    page.get_by_role("button", name="Review refund").click()

    expect(
        page.get_by_role("heading", name="Confirm the refund of ₦2,000.00")
    ).to_be_visible()
    expect(page.get_by_test_id("preview-reduced")).to_contain_text("₦1,166.66")
    expect(page.get_by_test_id("preview-returned")).to_have_text("₦833.34")
    reductions = page.get_by_test_id("preview-reductions").locator("tbody tr")
    expect(reductions).to_have_count(2)
    expect(reductions.first).to_contain_text("Cancelled")
    parts = page.get_by_test_id("preview-parts").locator("tbody tr")
    expect(parts).to_have_count(2)
    expect(parts.first).to_contain_text("Installment 1 of 3")
    expect(parts.last).to_contain_text("Deposit")
    assert Refund.objects.count() == 0  # nothing has moved yet
    screenshot("refund-preview")
    page.set_viewport_size(PHONE)
    screenshot("refund-preview-phone")
    page.set_viewport_size(DESKTOP)

    # A double click posts the confirmation twice: one refund.
    page.get_by_role("button", name="Confirm refund of ₦2,000.00").dblclick()

    expect(page).to_have_url(re.compile(rf"/dashboard/plans/{plan.public_id}/#"))
    expect(page.get_by_role("status").first).to_contain_text(
        "of ₦2,000.00 created: ₦833.34 is on its way back to the customer."
    )
    made = Refund.objects.get()
    row = page.locator(f'[data-refund-id="{made.public_id}"]')
    expect(row).to_contain_text("Returned the phone")
    expect(row.get_by_test_id("refund-status")).to_have_text("Pending")
    expect(page.get_by_test_id("plan-status")).to_have_text("Cancelled")
    expect(page.get_by_test_id("plan-refunded")).to_have_text("₦2,000.00")
    screenshot("plan-refunded")

    sandbox_refunds_settle()
    page.reload()
    expect(row.get_by_test_id("refund-status")).to_have_text("Processed")
    expect(row.locator(".badge-processed")).to_have_count(3)  # the refund, 2 parts
    screenshot("plan-refund-processed")
    page.set_viewport_size(PHONE)
    screenshot("plan-refund-processed-phone")
    page.set_viewport_size(DESKTOP)

    open_section(page, "Wallet")
    expect(page.get_by_test_id("wallet-owed")).to_contain_text("You owe ₦")
    expect(page.get_by_test_id("wallet-owed")).to_contain_text(
        "The next collections cover it before any payout."
    )
    expect(page.get_by_test_id("available-balance")).to_contain_text("-₦")
    movements = page.get_by_test_id("refund-movements").locator("tbody tr")
    expect(movements).to_have_count(4)
    expect(movements.first).to_contain_text("Refund paid to the customer")
    expect(movements.last).to_contain_text("Refund to a customer")
    expect(page.get_by_test_id("refunds-in-transit")).to_have_text("₦0.00")
    screenshot("wallet-owes")
    page.set_viewport_size(PHONE)
    screenshot("wallet-owes-phone")
    check_ledger()


def test_a_merchant_cancels_a_plan_from_the_dashboard(page, screenshot, service):
    owner = make_merchant_with_key(business_name="Ada's Electronics")
    plan = make_active_plan(owner, order_reference="ORD-TV-2002").plan
    page.set_viewport_size(DESKTOP)

    sign_in(page, owner.merchant)
    page.goto(f"/dashboard/plans/{plan.public_id}/")
    page.get_by_role("link", name="Cancel plan", exact=True).click()

    expect(
        page.get_by_role("heading", name="Stop collecting this plan?")
    ).to_be_visible()
    expect(page.get_by_test_id("cancel-unpaid")).to_have_text(
        "3 installments (₦1,750.00)"
    )
    screenshot("cancel")
    page.set_viewport_size(PHONE)
    screenshot("cancel-phone")
    page.set_viewport_size(DESKTOP)
    page.get_by_label("Reason").fill("The customer changed their mind")
    page.get_by_role("button", name="Yes, cancel the plan").click()

    expect(page).to_have_url(re.compile(rf"/dashboard/plans/{plan.public_id}/$"))
    expect(page.get_by_test_id("plan-status")).to_have_text("Cancelled")
    rows = page.get_by_test_id("installments").locator("tbody tr")
    expect(rows.filter(has_text="not collected")).to_have_count(3)
    expect(page.get_by_text("The customer changed their mind")).to_be_visible()
    assert PaymentPlan.objects.get(pk=plan.pk).status == "cancelled"
    screenshot("plan-cancelled")


def test_a_customer_pays_off_a_plan_from_the_account_pages(page, screenshot, service):
    owner = make_merchant_with_key(business_name="Ada's Electronics")
    setup = make_active_plan(owner, order_reference="ORD-LAPTOP-3003")
    plan = setup.plan
    # The merchant took 500 naira off the order: installment 3 owes 83.33.
    assert refund(setup, 50_000, "Discount").status_code == 201
    page.set_viewport_size(DESKTOP)

    page.goto("/account/login/")
    page.get_by_label("Email").fill(setup.shopper.customer.email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("row", name=re.compile("ORD-LAPTOP-3003")).get_by_role(
        "link", name="Details"
    ).click()
    expect(page).to_have_url(re.compile(rf"/account/plans/{plan.public_id}/$"))
    payoff = page.get_by_role("button", name="Pay off ₦1,250.00 now")
    expect(payoff).to_be_visible()
    expect(page.get_by_role("button", name="Pay this installment now")).to_have_count(3)
    screenshot("plan")
    page.set_viewport_size(PHONE)
    screenshot("plan-phone")
    page.set_viewport_size(DESKTOP)

    page.once("dialog", lambda dialog: dialog.accept())
    payoff.click()

    expect(page.get_by_role("status")).to_contain_text(
        "Your plan is paid off. Thank you!"
    )
    expect(page.get_by_role("button", name=re.compile("Pay"))).to_have_count(0)
    expect(page.locator(".badge-paid")).to_have_count(3)
    plan.refresh_from_db()
    assert plan.status == "completed"
    assert [row.status for row in installments_of(plan)] == ["paid"] * 3
    screenshot("paid-off")
    page.set_viewport_size(PHONE)
    screenshot("paid-off-phone")
    check_ledger()
