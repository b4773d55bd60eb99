"""The pay page of a pay link in a real browser (issue 27, DESIGN section 17), at
1280x800 and at a phone's 390x844: opened without signing in, it shows the
merchant, the order, what is due and the balance, never who the customer is;
the balance paid by bank transfer (the account on the payment page, the money
sent through the sandbox, "check again" says paid); USSD's code; a saved card
after the one-time code from the message sent; an expired link's "send me a
new link".

Every page is audited as tests/browser/test_accessibility.py audits the rest of
the product (axe-core: no serious or critical violation; at 390 px nothing wider
than the screen, every table a stack of cards with each cell on screen; no
clipped menu, no wrapped button). Screenshots: tests/screenshots/test_*/.
"""

import re
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone
from playwright.sync_api import expect

from installments.early.models import EarlyPayment
from installments.paylinks.models import PayLink
from installments.plans.models import Installment, PaymentPlan
from payments.gateway.services import sandbox_offline_complete

from ..conftest import make_merchant_with_key
from ..installments.conftest import check_ledger, installments_of, make_active_plan
from ..installments.pay_links import links_sent, merchant_link, path_of
from ..installments.receipts import PHONE, with_phone
from .axe import SIZES, Audit
from .conftest import PHONE as PHONE_SIZE

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "ada@mail.example.com"
Status = Installment.Status


@pytest.fixture
def service(settings, live_server):
    """The live server is the service's public address (pay links and the
    sandbox's card page are built on it)."""
    settings.BASE_URL = live_server.url
    settings.CONSUMER_URL = live_server.url
    return live_server.url


@pytest.fixture(params=list(SIZES))
def audit(request, page, screenshot):
    size = SIZES[request.param]
    page.set_viewport_size(size)
    return Audit(page, size, screenshot)


def overdue_plan(reference: str):
    """The plan of tests/installments/test_pay_page_paying.py (₦1,750.00 left in
    three installments), bought by a customer with a phone on file, its first
    installment's charge failed three days ago: one installment overdue."""
    owner = make_merchant_with_key(business_name="Bola's Furniture & Co")
    setup = make_active_plan(owner, email=EMAIL, order_reference=reference)
    with_phone(setup)
    first = installments_of(setup.plan)[0]
    Installment.objects.filter(pk=first.pk).update(
        status=Status.FAILED,
        due_date=timezone.localdate() - timedelta(days=3),
    )
    return setup


def choose(page, name) -> None:
    """Pick a choice of the pay form's radio groups by its label."""
    page.get_by_role("radio", name=name).check()


def assert_shows_nobody(page, setup) -> None:
    """Whoever holds the link learns nothing about who the customer is."""
    customer = setup.plan.customer
    html = page.content()
    for private in (customer.email, PHONE, customer.first_name, customer.last_name):
        assert private and private not in html, private


def assert_cards_on_a_phone(page, size) -> None:
    """At phone width the due list is a stack of cards, as every list is."""
    if size["width"] >= 600:
        return
    row = page.get_by_test_id("due").locator("tbody tr").first
    assert row.evaluate("r => getComputedStyle(r).display") == "block"
    head = page.get_by_test_id("due").locator("thead")
    assert head.evaluate("h => h.getBoundingClientRect().width") <= 1


def assert_fits(page, size) -> None:
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= page.evaluate("window.innerWidth") == size["width"], (
        f"{page.url} is {width} px wide"
    )


def test_the_balance_paid_by_bank_transfer_from_a_pay_link(audit, service):
    page, size = audit.page, audit.size
    setup = overdue_plan(f"ORD-PAY-{size['width']}")
    link = path_of(merchant_link(setup)["url"])

    audit(link, "pay-page")
    expect(page.get_by_role("heading", level=1)).to_have_text(
        f"Bola's Furniture & Co · order ORD-PAY-{size['width']}"
    )
    expect(page.get_by_test_id("balance")).to_have_text("₦1,750.00")
    due = page.get_by_test_id("due").locator("tbody tr")
    expect(due).to_have_count(1)
    expect(due.first).to_contain_text("1 of 3")
    expect(due.first).to_contain_text("₦583.34")
    expect(due.first).to_contain_text("Overdue")
    assert_shows_nobody(page, setup)
    assert_cards_on_a_phone(page, size)
    assert_fits(page, size)

    choose(page, re.compile(r"^The whole balance"))
    choose(page, "Bank transfer")
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url(re.compile(rf"{link}/payments/pay_\w+$"))
    payment = EarlyPayment.objects.get()
    assert (payment.channel, payment.amount) == ("bank_transfer", 175_000)
    audit.check("payment-pending")
    expect(
        page.get_by_role("heading", name="Send this exact amount by bank transfer")
    ).to_be_visible()
    expect(page.get_by_test_id("account-number")).to_have_text(
        payment.instructions["account_number"]
    )
    expect(page.get_by_test_id("payment")).to_contain_text("₦1,750.00")
    assert_shows_nobody(page, setup)
    assert_fits(page, size)

    # The customer sends the money; the sandbox tells the service.
    sandbox_offline_complete(reference=payment.reference)
    page.get_by_role("link", name="I have paid: check again").click()
    expect(page.get_by_role("heading", name="Paid. Thank you!")).to_be_visible()
    audit.check("payment-paid")
    assert PaymentPlan.objects.get(pk=setup.plan.pk).status == "completed"
    audit.assert_clean()
    check_ledger()


def test_ussd_shows_the_code_and_a_saved_card_pays_after_the_one_time_code(
    page, screenshot, service
):
    page.set_viewport_size(PHONE_SIZE)
    audit = Audit(page, PHONE_SIZE, screenshot)
    setup = overdue_plan("ORD-PAY-USSD")
    link = path_of(merchant_link(setup)["url"])
    rows = installments_of(setup.plan)
    # The payment page checks again by itself every 15 s: the page's clock is
    # moved on by the test, not waited for.
    page.clock.install()

    # Everything overdue (installment 1) by USSD: the code to dial.
    page.goto(link)
    choose(page, "Everything overdue")
    choose(page, "USSD")
    page.get_by_label("Bank (for USSD)").select_option("737")
    page.get_by_role("button", name="Continue").click()
    page.wait_for_url(re.compile(rf"{link}/payments/pay_\w+$"))
    ussd = EarlyPayment.objects.get()
    assert (ussd.channel, ussd.amount) == ("ussd", 58_334)
    audit.check("ussd-pending")
    expect(page.get_by_role("heading", name="Dial this code to pay")).to_be_visible()
    expect(page.get_by_test_id("ussd-code")).to_have_text(
        ussd.instructions["ussd_code"]
    )
    assert ussd.instructions["ussd_code"].startswith("*737*")

    # 15 s with nothing paid: the page stays as it is.
    page.clock.run_for(15_000)
    expect(page.get_by_test_id("payment")).to_have_attribute("data-status", "pending")
    # Paid at the bank: the next check shows it without a click.
    sandbox_offline_complete(reference=ussd.reference)
    page.clock.run_for(15_000)
    expect(page.get_by_role("heading", name="Paid. Thank you!")).to_be_visible()
    audit.check("ussd-paid")

    # Installment 2 with the saved card: the code first, sent to the contacts
    # on file and never named on the page.
    page.get_by_role("link", name="Back to the pay page").click()
    choose(page, re.compile(r"^One installment"))
    choose(page, re.compile(r"^Installment 2 of 3"))
    choose(page, re.compile(r"^A saved card or bank account"))
    page.get_by_role("button", name="Continue").click()
    expect(
        page.get_by_role("heading", name="Enter the code we sent you")
    ).to_be_visible()
    audit.check("saved-method-code")
    assert_shows_nobody(page, setup)
    [email] = [m for m in mail.outbox if m.subject == "Your one-time code"]
    code = re.search(r"\b(\d{6})\b", email.body).group(1)

    page.get_by_label("Code").fill(code)
    page.get_by_role("button", name="Pay ₦583.33").click()
    expect(page.get_by_role("heading", name="Paid. Thank you!")).to_be_visible()
    audit.check("saved-method-paid")
    assert [row.status for row in installments_of(setup.plan)] == [
        Status.PAID,
        Status.PAID,
        Status.SCHEDULED,
    ]
    assert rows[1].public_id in EarlyPayment.objects.exclude(
        pk=ussd.pk
    ).get().items.values_list("installment__public_id", flat=True)
    audit.assert_clean()
    check_ledger()


def test_an_expired_link_sends_a_new_one_on_a_phone(
    page, screenshot, service, sms_outbox
):
    page.set_viewport_size(PHONE_SIZE)
    audit = Audit(page, PHONE_SIZE, screenshot)
    setup = overdue_plan("ORD-PAY-EXPIRED")
    link = path_of(merchant_link(setup)["url"])
    PayLink.objects.update(expires_at=timezone.now() - timedelta(minutes=1))

    audit(link, "pay-link-expired")
    expect(
        page.get_by_role("heading", name="This pay link has expired")
    ).to_be_visible()
    assert_fits(page, PHONE_SIZE)
    page.get_by_role("button", name="Send me a new link").click()
    expect(page.get_by_role("heading", name="Check your messages")).to_be_visible()
    audit.check("new-link-sent")
    assert_shows_nobody(page, setup)

    # The new link went to the e-mail address and the phone on file.
    [new] = set(links_sent(sms_outbox))
    assert len(links_sent(sms_outbox)) == 2
    assert new != link
    page.goto(new)
    expect(page.get_by_test_id("balance")).to_have_text("₦1,750.00")
    audit.check("new-link-opened")
    audit.assert_clean()
