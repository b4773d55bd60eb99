"""The customer's `/account/` pages over plain HTTP (the test client keeps the
session cookie, like a browser)."""

import re
from unittest import mock
from urllib.parse import urlsplit

import pytest
from django.core.cache import cache
from django.test import Client
from rest_framework.test import APIClient

from config.money import format_kobo
from installments.refunds import settlement
from installments.refunds.models import RefundPart
from payments.gateway.processors.sandbox.values import CARD_REFUNDS_FAIL
from payments.gateway.services.charges import VERIFICATION_AMOUNT
from payments.gateway.services.refunds import RefundOutcome
from payments.models import PaymentMethod

from ..factories import PASSWORD, CustomerFactory
from .account import signed_in, text
from .conftest import check_ledger, collect, refund
from .refund_plans import dispatch, plan_paid_with


@pytest.fixture
def fresh_cache(db):
    cache.clear()  # the bank list is cached
    yield
    cache.clear()


@pytest.fixture
def ada(plan_active):
    return signed_in(plan_active.shopper.customer.email)


def test_account_pages_need_a_signed_in_customer(db):
    response = Client().get("/account/")

    assert response.status_code == 302
    assert response["Location"] == "/account/login/?next=%2Faccount%2F"


def test_a_merchant_signed_in_to_the_dashboard_is_not_a_customer(merchant_active):
    client = Client()
    client.post(
        "/dashboard/login/",
        {"email": merchant_active.email, "password": PASSWORD},
    )

    assert client.get("/account/").status_code == 302


def test_signing_in_goes_back_to_the_page_asked_for(plan_active):
    client = Client()
    response = client.post(
        "/account/login/?next=/account/",
        {
            "email": plan_active.shopper.customer.email,
            "password": PASSWORD,
            "next": f"/account/plans/{plan_active.plan.public_id}/",
        },
    )

    assert response.status_code == 303
    assert response["Location"] == f"/account/plans/{plan_active.plan.public_id}/"


def test_an_outside_next_url_is_ignored(plan_active):
    response = Client().post(
        "/account/login/",
        {
            "email": plan_active.shopper.customer.email,
            "password": PASSWORD,
            "next": "https://evil.example.com/",
        },
    )

    assert response["Location"] == "/account/"


def test_registering_creates_an_account_and_signs_in(db):
    client = Client()

    response = client.post(
        "/account/register/",
        {
            "email": "new@mail.example.com",
            "first_name": "Nneka",
            "last_name": "Eze",
            "phone": "+2348011111111",
            "password": PASSWORD,
        },
    )

    assert response.status_code == 303
    assert "Hello, Nneka" in text(client.get("/account/"))


@pytest.mark.parametrize("page", ["login", "register"])
def test_a_password_posted_on_the_account_pages_stays_out_of_error_reports(db, page):
    response = Client().post(
        f"/account/{page}/",
        {"email": "ada@mail.example.com", "password": "not-for-logs"},
    )

    assert response.status_code in (400, 401)
    assert response.wsgi_request.sensitive_post_parameters == ("password",)


def test_the_overview_lists_plans_with_next_due_date_and_amounts(ada, plan_active):
    plan = plan_active.plan
    first = plan.installments.first()

    page = text(ada.get("/account/"))

    assert f'data-plan="{plan.public_id}"' in page
    assert f"₦583.34 on {first.due_date:%-d %b %Y}" in page
    assert "₦750.00" in page  # paid: the deposit
    assert "₦1,750.00" in page  # remaining
    assert "Visa •••• 4081" in page


def test_the_plan_page_shows_every_installment(ada, plan_active):
    plan = plan_active.plan

    response = ada.get(f"/account/plans/{plan.public_id}/")

    assert response.status_code == 200
    page = text(response)
    for installment in plan.installments.all():
        assert f'data-installment="{installment.public_id}"' in page
    assert "no-store" in response["Cache-Control"]


def test_the_plan_page_says_what_the_merchant_refunded(ada, plan_active):
    plan = plan_active.plan
    page = text(ada.get(f"/account/plans/{plan.public_id}/"))
    assert "Refunded" not in page

    response = APIClient().post(
        f"{plan_active.url}/refunds",
        {"amount": 50_000, "reason": "Returned a cable"},
        format="json",
        **plan_active.owner.headers,
    )
    assert response.status_code == 201, response.content

    page = text(ada.get(f"/account/plans/{plan.public_id}/"))
    assert f"Refunded by {plan.merchant.business_name}" in page
    assert "₦500.00" in page
    assert "₦1,250.00" in page  # remaining: 1,750 less the 500 taken off


def test_another_customers_plan_is_404(plan_active):
    mallory = CustomerFactory()
    client = signed_in(mallory.email)

    response = client.get(f"/account/plans/{plan_active.plan.public_id}/")

    assert response.status_code == 404


def test_set_default_and_delete_a_method(ada, plan_active):
    customer = plan_active.shopper.customer
    first = PaymentMethod.objects.get(customer=customer)
    second = PaymentMethod.objects.create(
        customer=customer,
        type="card",
        label="Mastercard •••• 5555",
        last4="5555",
        processor="sandbox",
        authorization_code="AUTH_x",
        authorization_code_hash="x",
        fingerprint="other",
    )

    made_default = ada.post(f"/account/methods/{second.public_id}/default/")
    removed = ada.post(f"/account/methods/{first.public_id}/delete/")

    assert made_default.status_code == 303 and removed.status_code == 303
    second.refresh_from_db()
    first.refresh_from_db()
    assert second.is_default and first.status == "deleted"
    assert "Visa •••• 4081 was removed." in text(ada.get("/account/"))


def test_another_customers_method_cannot_be_touched(ada, db):
    mallory = CustomerFactory()
    method = PaymentMethod.objects.create(
        customer=mallory,
        type="card",
        label="Visa •••• 1111",
        last4="1111",
        processor="sandbox",
        authorization_code="AUTH_y",
        authorization_code_hash="y",
        fingerprint="y",
    )

    assert ada.post(f"/account/methods/{method.public_id}/delete/").status_code == 404
    assert ada.post(f"/account/methods/{method.public_id}/default/").status_code == 404
    method.refresh_from_db()
    assert method.status == "active"


def test_method_actions_need_post(ada, plan_active):
    method = PaymentMethod.objects.get(customer=plan_active.shopper.customer)

    assert ada.get(f"/account/methods/{method.public_id}/delete/").status_code == 405


def bank_start(client, account_number, next_url=""):
    body = {
        "bank_code": "044",
        "account_number": account_number,
        "terms_accepted": "on",
    }
    if next_url:
        body["next"] = next_url
    response = client.post("/account/methods/bank/", body)
    assert response.status_code == 303, response.content
    return response["Location"]


def test_the_bank_page_names_the_verification_charge_it_makes(fresh_cache):
    """The page shows the charge the service makes, through the money
    formatter: it follows the charge when the charge changes."""
    page = text(signed_in(CustomerFactory().email).get("/account/methods/bank/"))

    charge = format_kobo(VERIFICATION_AMOUNT)
    assert f"We charge {charge} to check the account" in page


def test_a_bank_mandate_asking_for_birthday_then_otp(fresh_cache):
    customer = CustomerFactory()
    client = signed_in(customer.email)

    step = bank_start(client, "0123456781")
    birthday_page = text(client.get(step))
    assert "Date of birth" in birthday_page
    otp_step = client.post(step, {"birthday": "1990-05-17"})
    assert otp_step.status_code == 303
    wrong = client.post(otp_step["Location"], {"otp": "000000"})
    assert wrong.status_code == 400
    assert "The OTP is incorrect; 4 more attempts" in text(wrong)
    done = client.post(otp_step["Location"], {"otp": "123456"})

    assert done.status_code == 303 and done["Location"] == "/account/"
    [method] = PaymentMethod.objects.filter(customer=customer)
    assert method.type == "bank" and method.is_default


def test_a_bank_mandate_by_phone_returns_to_the_checkout(fresh_cache):
    customer = CustomerFactory()
    client = signed_in(customer.email)

    step = bank_start(client, "0123456782", next_url="/checkout/fcs_abc")
    assert "next=%2Fcheckout%2Ffcs_abc" in step
    otp_step = client.post(step, {"phone": "+2348012345678"})
    done = client.post(otp_step["Location"], {"otp": "123456"})

    method = PaymentMethod.objects.get(customer=customer)
    assert done["Location"] == f"/checkout/fcs_abc?method={method.public_id}"


def test_a_bank_mandate_authorized_on_the_banks_page(fresh_cache):
    customer = CustomerFactory()
    client = signed_in(customer.email)
    step = bank_start(client, "0123456783")
    page = text(client.get(step))
    bank_url = re.search(r'href="([^"]*/sandbox/mandate/[^"]+)"', page).group(1)

    too_early = client.post(step)
    Client().post(urlsplit(bank_url).path)
    done = client.post(step)

    assert too_early.status_code == 409
    assert "has not authorized" in text(too_early)
    assert done.status_code == 303
    assert PaymentMethod.objects.filter(customer=customer, type="bank").exists()


def test_bad_bank_details_are_shown_on_the_form(fresh_cache):
    client = signed_in(CustomerFactory().email)

    response = client.post(
        "/account/methods/bank/",
        {"bank_code": "044", "account_number": "12345", "terms_accepted": "on"},
    )

    assert response.status_code == 400
    assert "exactly 10 digits" in text(response)


def test_another_customers_mandate_reference_is_404(fresh_cache):
    ada = signed_in(CustomerFactory().email)
    step = bank_start(ada, "0123456780")

    response = signed_in(CustomerFactory().email).get(step)

    assert response.status_code == 404


def test_a_card_that_is_declined_is_not_saved(db):
    customer = CustomerFactory()
    client = signed_in(customer.email)
    started = client.post("/account/methods/card/")
    back = Client().post(
        urlsplit(started["Location"]).path, {"card_number": "4000000000000002"}
    )

    returned = client.get(back["Location"])

    assert returned["Location"] == "/account/"
    assert "The card was not saved" in text(client.get("/account/"))
    assert not PaymentMethod.objects.filter(customer=customer).exists()


def test_signing_out(ada):
    response = ada.post("/account/logout/")

    assert response.status_code == 303
    assert ada.get("/account/").status_code == 302


def test_add_a_card_may_lead_to_the_processors_card_page(settings, db):
    # "Add a card" is answered with a redirect to Paystack's checkout page, and
    # Chromium checks form-action on that redirect too.
    customer = CustomerFactory()
    client = signed_in(customer.email)
    sandbox_policy = client.get("/account/")["Content-Security-Policy"]
    settings.PROCESSOR = "paystack"
    paystack_policy = client.get("/account/")["Content-Security-Policy"]

    assert "form-action 'self';" in sandbox_policy
    assert "form-action 'self' https://checkout.paystack.com;" in paystack_policy


def test_the_plan_page_says_what_of_a_refund_is_on_its_way_and_what_failed(db):
    """Issue 25 item 1: while the money of a refund is on its way the customer
    is told; once it failed, `Refunded` no longer counts it."""
    setup = plan_paid_with(CARD_REFUNDS_FAIL)
    bola = signed_in(setup.shopper.customer.email)
    first = setup.plan.installments.order_by("sequence").first()
    collect(first.due_date)

    with mock.patch.object(settlement, "processor_refund_request", pending):
        response = refund(setup, 150_000)
    assert response.status_code == 201, response.content
    url = f"/account/plans/{setup.plan.public_id}/"
    merchant = setup.plan.merchant.business_name

    page = text(bola.get(url))
    assert f"Refunded by {merchant}</dt><dd>₦1,500.00" in page
    assert "(₦333.34 of it on its way back to you)" in page

    [part] = RefundPart.objects.all()
    dispatch(part, "failed")

    page = text(bola.get(url))
    assert f"Refunded by {merchant}</dt><dd>₦1,166.66</dd>" in page
    assert "on its way" not in page
    check_ledger()


def pending(*, reference, transaction_reference, amount, currency, note):
    """The processor takes the refund as `pending`."""
    return RefundOutcome(
        reference, transaction_reference, f"rfd_{reference}", amount, "pending", ""
    )
