"""Paying early from `/account/plans/<id>/`: a "Pay this installment now" button
per unpaid installment and "Pay off ₦X now", with the method chosen from the
customer's active ones; the outcome shown on the plan page."""

import pytest
from django.test import Client

from installments.early.models import EarlyPayment
from installments.early.sandbox import (
    early_payment_sandbox_complete,
    early_payment_sandbox_expire,
)
from installments.plans.models import Installment
from payments.models import LedgerTransaction

from ..checkout.conftest import CARD_POOR, add_card
from .account import signed_in, text
from .conftest import check_ledger, installments_of, make_active_plan

pytestmark = pytest.mark.django_db


def plan_page(client, setup):
    response = client.get(f"/account/plans/{setup.plan.public_id}/")
    assert response.status_code == 200
    return text(response)


def post_pay(client, setup, **data):
    return client.post(f"/account/plans/{setup.plan.public_id}/pay/", data)


@pytest.fixture
def ada(plan_active):
    return signed_in(plan_active.shopper.customer.email)


def test_the_plan_page_offers_each_unpaid_installment_and_the_payoff(ada, plan_active):
    rows = installments_of(plan_active.plan)
    card = plan_active.plan.customer.payment_methods.get()

    page = plan_page(ada, plan_active)

    assert page.count("Pay this installment now") == 3
    for row in rows:
        assert f'name="installment_id" value="{row.public_id}"' in page
    left = sum(row.amount for row in rows)
    assert f"Pay off ₦{left // 100:,}.{left % 100:02d} now" in page
    assert f'<option value="{card.public_id}">{card.label} (default)</option>' in page


def test_paying_one_installment_from_the_page(ada, plan_active):
    first, second, _ = installments_of(plan_active.plan)
    card = plan_active.plan.customer.payment_methods.get()

    response = post_pay(
        ada,
        plan_active,
        installment_id=second.public_id,
        payment_method_id=card.public_id,
    )

    assert response.status_code == 303
    assert response["Location"] == f"/account/plans/{plan_active.plan.public_id}/"
    page = plan_page(ada, plan_active)
    assert "Installment 2 is paid. Thank you!" in page
    assert page.count("Pay this installment now") == 2
    second.refresh_from_db()
    assert (second.status, second.processor_reference) == (
        "paid",
        f"{second.public_id}_p1",
    )
    assert "clean" in check_ledger()


def test_paying_off_from_the_page_with_the_method_chosen(ada, plan_active):
    setup = plan_active
    poor = add_card(setup.shopper, CARD_POOR)
    rows = installments_of(setup.plan)

    declined = post_pay(ada, setup, payoff="true", payment_method_id=poor)
    assert declined.status_code == 303
    page = plan_page(ada, setup)
    assert "The payment could not be charged: insufficient funds." in page
    assert page.count("Pay this installment now") == 3

    good = setup.plan.customer.payment_methods.exclude(public_id=poor).get()
    post_pay(ada, setup, payoff="true", payment_method_id=good.public_id)

    page = plan_page(ada, setup)
    assert "Your plan is paid off. Thank you!" in page
    assert "Pay off" not in page and "Pay this installment now" not in page
    assert [
        p.payment_method.public_id for p in EarlyPayment.objects.order_by("id")
    ] == [
        poor,
        good.public_id,
    ]
    # The payoff's collection (`<plan id>_po<k>`; not a substring match, which
    # SQLite makes case-blind and a random plan id could hold).
    [collection] = LedgerTransaction.objects.filter(
        kind="collection", resource_type="payment_plan", reference__regex=r"_po[0-9]+$"
    )
    assert collection.amount == sum(row.amount for row in rows)
    assert "clean" in check_ledger()


def test_another_customers_plan_cannot_be_paid(plan_active):
    other = make_active_plan(email="bola@mail.example.com")
    bola = signed_in(other.shopper.customer.email)

    response = post_pay(bola, plan_active, payoff="true")

    assert response.status_code == 404
    assert not EarlyPayment.objects.exists()


def test_paying_needs_post_and_a_choice(ada, plan_active):
    assert (
        ada.get(f"/account/plans/{plan_active.plan.public_id}/pay/").status_code == 405
    )

    response = post_pay(ada, plan_active)

    assert response.status_code == 303
    assert "Choose an installment to pay, or pay off the plan." in plan_page(
        ada, plan_active
    )
    assert not EarlyPayment.objects.exists()


def test_an_installment_being_collected_has_no_button(ada, plan_active):
    first = installments_of(plan_active.plan)[0]
    first.transition_to(Installment.Status.PROCESSING)

    page = plan_page(ada, plan_active)

    assert page.count("Pay this installment now") == 2
    assert f'value="{first.public_id}"' not in page


def test_signed_out_the_pay_form_asks_to_sign_in(plan_active):
    response = Client().post(f"/account/plans/{plan_active.plan.public_id}/pay/")

    assert response.status_code == 302
    assert response["Location"].startswith("/account/login/")


# --- bank transfer and USSD (DESIGN section 17) ----------------------------------


def test_the_page_offers_a_bank_transfer_and_ussd_besides_saved_methods(
    ada, plan_active
):
    page = plan_page(ada, plan_active)

    assert '<option value="bank_transfer">' in page
    for code in ("737", "919", "822", "966"):
        assert f'<option value="ussd:{code}">' in page


def test_paying_by_transfer_shows_the_account_and_checks_again_on_reload(
    ada, plan_active
):
    setup = plan_active
    second = installments_of(setup.plan)[1]

    response = post_pay(
        ada, setup, installment_id=second.public_id, pay_with="bank_transfer"
    )

    payment = EarlyPayment.objects.get()
    url = f"/account/plans/{setup.plan.public_id}/payments/{payment.public_id}/"
    assert response.status_code == 303 and response["Location"] == url
    page = text(ada.get(url))
    assert payment.instructions["account_number"] in page
    assert "Send this exact amount by bank transfer" in page
    assert f"₦{second.amount // 100:,}.{second.amount % 100:02d}" in page
    assert "waiting for your money" in page and "check again" in page
    assert 'data-status="pending"' in page
    # The plan page points at it while it waits.
    assert "See how to pay it" in plan_page(ada, setup)

    early_payment_sandbox_complete(payment)

    page = text(ada.get(url))
    assert 'data-status="succeeded"' in page and "Paid. Thank you!" in page
    assert "clean" in check_ledger()


def test_paying_by_ussd_shows_the_code_and_an_expired_one_says_so(ada, plan_active):
    setup = plan_active

    post_pay(ada, setup, payoff="true", pay_with="ussd:737")

    payment = EarlyPayment.objects.get()
    url = f"/account/plans/{setup.plan.public_id}/payments/{payment.public_id}/"
    page = text(ada.get(url))
    assert payment.instructions["ussd_code"] in page and "Dial this code" in page

    early_payment_sandbox_expire(payment)

    page = text(ada.get(url))
    assert 'data-status="expired"' in page and "This payment has ended" in page


def test_a_customer_without_a_saved_method_can_still_pay_by_transfer(ada, plan_active):
    setup = plan_active
    card = setup.plan.customer.payment_methods.get()
    response = setup.shopper.client.delete(f"/api/v1/payment-methods/{card.public_id}")
    assert response.status_code == 200, response.content

    page = plan_page(ada, setup)

    assert page.count("Pay this installment now") == 3
    assert '<option value="bank_transfer">' in page


def test_another_customers_payment_page_is_a_404(ada, plan_active):
    post_pay(ada, plan_active, payoff="true", pay_with="bank_transfer")
    payment = EarlyPayment.objects.get()
    other = make_active_plan(email="bola@mail.example.com")
    bola = signed_in(other.shopper.customer.email)

    url = f"/account/plans/{plan_active.plan.public_id}/payments/{payment.public_id}/"
    assert bola.get(url).status_code == 404
    mine = f"/account/plans/{other.plan.public_id}/payments/{payment.public_id}/"
    assert bola.get(mine).status_code == 404
