"""The key facts box and the agreement record in a real browser (issue 28,
DESIGN section 18): at 1280x800 and 390x844 a customer reads the key facts on
the hosted checkout (the merchant's legal details, every installment with its
amount and date, the total cost of credit), ticks the consent box, pays the
deposit, and downloads the agreement's PDF from their plan's page; its bytes
hash to the record's `document_sha256`. Both pages have no serious or critical
axe-core violation and nothing off screen at phone width (`Audit`)."""

import hashlib
import re
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from checkout.services.sessions import session_create
from config.money import format_kobo
from installments.agreements.models import Agreement
from installments.plans import rules
from installments.plans.models import PaymentPlan

from ..checkout.conftest import add_card, register
from ..conftest import make_merchant_with_key
from ..factories import PASSWORD
from ..installments.conftest import check_ledger
from .axe import SIZES, Audit
from .conftest import AGREE

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "ada@mail.example.com"
AMOUNT = 4_500_000  # ₦45,000: tier B, deposit 30%


@pytest.fixture
def service(settings, live_server):
    settings.BASE_URL = live_server.url
    settings.CONSUMER_URL = live_server.url
    return live_server.url


@pytest.mark.parametrize("size", list(SIZES))
def test_a_customer_agrees_to_the_key_facts_and_downloads_the_agreement(
    page, screenshot, service, size
):
    page.set_viewport_size(SIZES[size])
    audit = Audit(page, SIZES[size], screenshot)
    owner = make_merchant_with_key(
        business_name="Ada's Furniture",
        legal_name="Ada Furniture Nigeria Limited",
        support_email="help@ada-furniture.example.com",
        support_phone="+234 801 234 5678",
        fccpc_registration_number="FCCPC/DL/2026/0042",
        refund_policy="Returns within 7 days <b>unused</b>; refunds in 5 days.",
    )
    add_card(register(EMAIL))
    token = session_create(
        merchant=owner.merchant,
        amount=AMOUNT,
        currency="NGN",
        title="Ergonomic office chair",
        order_reference=f"KF-{size}",
        customer_email=EMAIL,
    ).session.token
    page.goto(f"/checkout/{token}")
    known = page.get_by_role("region", name="I have an account")
    known.get_by_label("Password").fill(PASSWORD)
    known.get_by_role("button", name="Sign in").click()
    expect(page.get_by_text(f"Signed in as {EMAIL}")).to_be_visible()

    # Three monthly installments: the box shows the figures the plan will have.
    page.get_by_label("Installments after the deposit").select_option("3")
    terms = rules.plan_terms(
        amount=AMOUNT,
        score=rules.NEW_CUSTOMER_SCORE,
        schedule_type="monthly",
        installment_count=3,
        config=rules.PlanConfig.of(owner.merchant),
        start=timezone.localdate(),
    )
    installments = page.get_by_test_id("kf-installments").locator("li")
    expect(installments).to_have_count(3)
    for row, amount in zip(installments.all(), terms.installment_amounts, strict=True):
        expect(row).to_contain_text(format_kobo(amount))
    expect(page.get_by_test_id("kf-merchant")).to_contain_text(
        "Ada Furniture Nigeria Limited"
    )
    expect(page.get_by_test_id("kf-merchant")).to_contain_text("FCCPC/DL/2026/0042")
    expect(page.get_by_test_id("kf-deposit")).to_have_text(
        format_kobo(terms.deposit_amount)
    )
    expect(page.get_by_test_id("kf-total-payable")).to_have_text(format_kobo(AMOUNT))
    expect(page.get_by_test_id("kf-cost-of-credit")).to_have_text(format_kobo(0))
    # The merchant's text is shown as typed, never as markup.
    expect(page.get_by_test_id("kf-refunds")).to_contain_text("<b>unused</b>")
    consent = page.get_by_label(AGREE)
    expect(consent).not_to_be_checked()
    audit.check("checkout-key-facts")

    # Without the tick the browser does not send the form: nothing is charged.
    pay = page.get_by_role(
        "button", name=f"Pay {format_kobo(terms.deposit_amount)} now"
    )
    pay.click()
    expect(page).to_have_url(re.compile(rf"/checkout/{token}$"))
    assert not PaymentPlan.objects.filter(status=PaymentPlan.Status.ACTIVE).exists()

    consent.check()
    pay.click()
    expect(page.get_by_role("heading", name="Deposit paid")).to_be_visible()
    plan = PaymentPlan.objects.get(order_reference=f"KF-{size}")
    agreement = Agreement.objects.get(plan=plan)
    assert agreement.key_facts["installments"] == [
        {"sequence": row.sequence, "amount": row.amount, "due_date": str(row.due_date)}
        for row in plan.installments.order_by("sequence")
    ]

    page.goto(f"/account/plans/{plan.public_id}/")
    link = page.get_by_test_id("agreement-link")
    expect(link).to_be_visible()
    audit.check("account-plan-with-agreement")
    with page.expect_download() as download:
        link.click()
    document = Path(download.value.path()).read_bytes()
    assert document.startswith(b"%PDF")
    assert hashlib.sha256(document).hexdigest() == agreement.document_sha256
    audit.assert_clean()
    check_ledger()
