"""axe-core in every page of the product (issue 25 item 10), at 1280x800 and at a
phone's 390x844: the public site, the merchant dashboard with the demo data
`make run` seeds, a demo customer's /account/ pages, and the hosted checkout from
the sign-in form to the deposit paid (with the sandbox's card page between).

Every page: no `serious` or `critical` violation of axe-core's rules (vendored in
tests/browser/vendor/, see its README). At 390 px: the page is no wider than the
screen, and every cell of every table is on screen and not clipped (a list is a
stack of cards there, each value under its column's name), so a status or an
amount is never off to the side. At both sizes no menu (select) is too narrow
for its choices' text and no button or badge wraps its words onto two lines.

The violations of every page are collected and reported together, so that one
run lists them all (`Audit`, tests/browser/axe.py). Screenshots:
tests/screenshots/test_axe_*/.
"""

import re

import pytest
from playwright.sync_api import expect

from checkout.services.sessions import session_create
from installments.plans.models import PaymentPlan
from merchants import guides
from merchants.demo import DEMO_MERCHANT_EMAIL
from merchants.models import Merchant
from payments.customers.models import Customer

from ..factories import PASSWORD
from ..installments.disputes import deposit_reference, dispute_open
from .axe import SIZES, Audit
from .conftest import AGREE, sign_in

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def service(settings, live_server):
    """The live server is the service's public address (the sandbox's card page
    returns to it)."""
    settings.BASE_URL = live_server.url
    settings.CONSUMER_URL = live_server.url
    return live_server.url


@pytest.fixture(params=list(SIZES))
def audit(request, page, screenshot):
    size = SIZES[request.param]
    page.set_viewport_size(size)
    return Audit(page, size, screenshot)


def test_axe_public_pages(audit):
    audit("/", "landing")
    audit("/docs/", "guides")
    for guide in guides.GUIDES:
        audit(f"/docs/{guide.slug}/", f"guide-{guide.slug}")
    audit("/dashboard/login/", "dashboard-sign-in")
    audit("/dashboard/signup/", "dashboard-sign-up")
    audit("/dashboard/password-reset/", "dashboard-password-reset")
    audit("/account/login/", "account-sign-in")
    audit("/account/register/", "account-register")
    audit("/account/password-reset/", "account-password-reset")
    audit("/account/password-reset/sent/", "account-password-reset-sent")
    audit("/account/login/code/", "account-code-request")
    audit("/account/login/code/enter/", "account-code-sign-in")
    audit("/no-such-page/", "not-found")
    audit("/l/pl_nosuchlink", "payment-link-unavailable")
    audit("/payment-methods/mandate-authorized", "mandate-authorized")
    audit("/demo/", "widget-demo")
    assert len(audit.pages) == 15 + len(guides.GUIDES)
    audit.assert_clean()


def test_axe_dashboard_pages(audit, demo_password):
    page = audit.page
    merchant = Merchant.objects.get(email=DEMO_MERCHANT_EMAIL, livemode=True)
    plans = PaymentPlan.objects.filter(merchant=merchant).order_by("order_reference")
    assert plans.count() == 9
    sign_in(page, merchant, demo_password)
    audit.check("overview")
    audit("/dashboard/keys/", "keys")
    audit("/dashboard/settings/", "settings")
    audit("/dashboard/password/", "password")
    audit("/dashboard/plans/", "plans")
    for plan in plans:
        audit(f"/dashboard/plans/{plan.public_id}/", f"plan-{plan.order_reference}")
    active = plans.get(order_reference="DEMO-1006")
    audit(f"/dashboard/plans/{active.public_id}/reschedule/", "reschedule")
    audit(f"/dashboard/plans/{active.public_id}/cancel/", "cancel")
    page.goto(f"/dashboard/plans/{active.public_id}/")
    form = page.get_by_test_id("refund-form")
    form.get_by_label("Amount").fill("1000")
    form.get_by_label("Reason").fill("Part of the order was returned.")
    form.get_by_role("button", name="Review refund").click()
    page.get_by_test_id("refund-preview").wait_for()
    audit.check("refund-preview")
    audit("/dashboard/wallet/", "wallet")
    audit("/dashboard/wallet/payout-account/", "payout-account")
    audit("/dashboard/webhooks/", "webhooks")
    page.get_by_test_id("event-log").locator("tbody tr a").first.click()
    page.get_by_test_id("attempts").wait_for()
    audit.check("webhook-event")
    audit("/dashboard/links/", "links")
    page.get_by_test_id("links").locator("tbody tr a").first.click()
    page.get_by_test_id("link-sessions").wait_for()
    audit.check("link")
    # A dispute of the active plan's deposit (after its refund preview, which
    # an open dispute would refuse): the list, the dispute with its forms, the
    # plan showing it.
    dispute = dispute_open(deposit_reference(active))
    audit("/dashboard/disputes/", "disputes")
    audit(f"/dashboard/disputes/{dispute.public_id}/", "dispute")
    audit(f"/dashboard/plans/{active.public_id}/", "plan-with-dispute")
    assert len(audit.pages) == 17 + plans.count()
    audit.assert_clean()


def test_axe_account_pages(audit, demo_password):
    """A demo customer with the most plans signs in to /account/."""
    page = audit.page
    customer = max(
        Customer.objects.filter(payment_plans__isnull=False).distinct(),
        key=lambda c: c.payment_plans.count(),
    )
    customer.set_password(PASSWORD)
    customer.save()
    page.goto("/account/login/")
    page.get_by_label("Email").fill(customer.email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/account/")
    audit.check("account-overview")
    audit("/account/profile/", "account-profile")
    audit("/account/privacy/", "account-privacy")
    audit("/account/methods/bank/", "account-add-bank")
    for plan in customer.payment_plans.order_by("order_reference"):
        audit(f"/account/plans/{plan.public_id}/", f"account-plan-{plan.status}")
        if plan.status == "active":
            audit(f"/account/plans/{plan.public_id}/reschedule/", "account-reschedule")
    assert len(audit.pages) >= 4
    audit.assert_clean()


def test_axe_hosted_checkout(audit, demo_password, service):
    """A new customer registers at checkout, adds a card on the sandbox's page
    and pays the deposit; a returning customer signs in."""
    page = audit.page
    merchant = Merchant.objects.get(email=DEMO_MERCHANT_EMAIL, livemode=True)
    width = audit.size["width"]
    token = session_create(
        merchant=merchant,
        amount=4_500_000,
        currency="NGN",
        title="Ergonomic office chair",
        order_reference=f"AXE-{width}",
    ).session.token
    audit(f"/checkout/{token}", "checkout-sign-in")
    new = page.get_by_role("region", name="I'm new here")
    new.get_by_label("Email").fill(f"axe.{width}@mail.example.com")
    new.get_by_label("First name").fill("Ada")
    new.get_by_label("Last name").fill("Obi")
    new.get_by_label("Phone number").fill("+2348012345678")
    new.get_by_label("Password").fill(PASSWORD)
    new.get_by_role("button", name="Create account").click()
    expect(page.get_by_test_id("no-methods")).to_be_visible()
    audit.check("checkout-no-method")
    page.get_by_role("button", name="Add a card").click()
    page.wait_for_url(re.compile(r"/sandbox/authorize/"))
    audit.check("sandbox-card-page")
    page.get_by_label("Card number").fill("4084084084084081")
    page.get_by_role("button", name="Pay and continue").click()
    page.wait_for_url(re.compile(r"/checkout/fcs_[0-9A-Za-z]+\?method=pm_"))
    audit.check("checkout-pay")
    page.get_by_label(AGREE).check()
    page.get_by_role("button", name=re.compile(r"^Pay ₦")).click()
    expect(page.get_by_role("heading", name="Deposit paid")).to_be_visible()
    audit.check("checkout-done")
    audit(f"/checkout/{token}", "checkout-already-paid")
    assert len(audit.pages) == 6
    audit.assert_clean()
