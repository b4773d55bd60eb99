"""The hosted checkout pages, payment link pages and widget over plain HTTP
(Django's test client keeps the session cookie, like a browser)."""

import re
from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from checkout.models import CheckoutSession, PaymentLink
from config.web.security_headers import policy
from installments.plans.models import PaymentPlan
from payments.models import Customer

from ..conftest import make_merchant_with_key
from ..factories import PASSWORD, CustomerFactory
from .conftest import CARD_POOR, deposit_charges, open_session
from .hosted import add_card_on_page, register_on_page, text


@pytest.fixture
def browser():
    return Client()


def pay_on_page(browser, token, method_id, count=3):
    return browser.post(
        f"/checkout/{token}/pay",
        {
            "schedule_type": "monthly",
            "installment_count": str(count),
            "payment_method_id": method_id,
            "terms_accepted": "yes",
        },
    )


def test_an_unknown_session_shows_a_clear_404_page(browser, db):
    response = browser.get("/checkout/fcs_doesnotexist")

    assert response.status_code == 404
    assert "Checkout not found" in text(response)


def test_an_expired_session_shows_a_clear_page(browser, merchant_with_key):
    token = open_session(merchant_with_key)

    with time_machine.travel(timezone.now() + timedelta(minutes=31)):
        response = browser.get(f"/checkout/{token}")

    assert response.status_code == 410
    assert "This checkout has expired" in text(response)
    assert "nothing was charged" in text(response)


def test_a_new_visitor_sees_the_order_and_forms_with_the_email_prefilled(
    browser, merchant_with_key
):
    token = open_session(merchant_with_key, customer_email="ada@mail.example.com")

    response = browser.get(f"/checkout/{token}")

    assert response.status_code == 200
    page = text(response)
    assert "Samsung Galaxy A55" in page and "₦2,500.00" in page
    assert merchant_with_key.merchant.business_name in page
    assert page.count('value="ada@mail.example.com"') == 2  # sign in and register
    assert response["Cache-Control"].startswith("max-age=0")


def test_checkout_pages_may_be_framed_only_by_the_merchants_site(
    browser, merchant_with_key
):
    token = open_session(merchant_with_key)

    response = browser.get(f"/checkout/{token}")

    assert response["Content-Security-Policy"] == policy(
        frame_ancestors=("'self'", "https://shop.example.com")
    )
    assert "script-src 'self';" in response["Content-Security-Policy"]
    assert "X-Frame-Options" not in response


def test_every_checkout_page_runs_under_the_full_policy(browser, merchant_with_key):
    token = open_session(merchant_with_key)
    merchant_site = policy(frame_ancestors=("'self'", "https://shop.example.com"))
    this_site_only = policy(frame_ancestors=("'self'",))
    signed_out = browser.get(f"/checkout/{token}")
    register_on_page(browser, token)
    signed_in = browser.get(f"/checkout/{token}")
    unknown = browser.get("/checkout/fcs_doesnotexist")
    link = PaymentLink.objects.create(
        merchant=merchant_with_key.merchant,
        title="Chair",
        amount=500_000,
        currency="NGN",
        is_active=False,
    )
    inactive_link = browser.get(f"/l/{link.slug}")

    for response in (signed_out, signed_in):
        assert response.status_code == 200
        assert response["Content-Security-Policy"] == merchant_site
        assert "X-Frame-Options" not in response
    for response in (unknown, inactive_link):
        assert response.status_code == 404
        assert response["Content-Security-Policy"] == this_site_only
        assert "X-Frame-Options" not in response


def test_pages_outside_the_checkout_are_never_frameable(browser, db):
    response = browser.get("/account/login/")

    assert response.status_code == 200

    assert "frame-ancestors 'none'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"


def test_the_pay_page_may_send_the_customer_to_the_processors_card_page(
    browser, merchant_with_key, settings
):
    token = open_session(merchant_with_key)
    register_on_page(browser, token)
    settings.PROCESSOR = "paystack"

    response = browser.get(f"/checkout/{token}")

    assert "Add a card" in text(response)
    assert (
        "form-action 'self' https://checkout.paystack.com;"
        in response["Content-Security-Policy"]
    )


def test_in_a_frame_of_another_site_the_checkout_offers_a_window_of_its_own(
    browser, merchant_with_key
):
    # No SameSite=Lax cookie reaches a frame of another site: the sign-in forms
    # could only fail there (docs/decisions.md).
    token = open_session(merchant_with_key)
    framed = {"HTTP_SEC_FETCH_DEST": "iframe"}

    other_site = browser.get(
        f"/checkout/{token}", HTTP_SEC_FETCH_SITE="cross-site", **framed
    )
    same_site = browser.get(
        f"/checkout/{token}", HTTP_SEC_FETCH_SITE="same-site", **framed
    )

    assert other_site.status_code == 200
    page = text(other_site)
    assert "Continue in a new window" in page
    assert f'href="/checkout/{token}" target="_blank"' in page
    assert 'name="password"' not in page
    assert (
        "frame-ancestors 'self' https://shop.example.com"
        in (other_site["Content-Security-Policy"])
    )
    assert "Sec-Fetch-Site" in other_site["Vary"]
    assert "I have an account" in text(same_site)


def test_registering_on_the_page_signs_the_customer_in(browser, merchant_with_key):
    token = open_session(merchant_with_key)

    response = register_on_page(browser, token)

    assert response.status_code == 303
    assert response["Location"] == f"/checkout/{token}"
    page = text(browser.get(f"/checkout/{token}"))
    assert "Signed in as ada@mail.example.com" in page
    assert "Add a card or a bank account. Your installments are collected" in page
    # New customer, tier B: 30% of 250,000 kobo.
    assert "₦750.00" in page


def test_registration_problems_are_shown_next_to_the_fields(browser, merchant_with_key):
    token = open_session(merchant_with_key)
    CustomerFactory(email="taken@mail.example.com")

    weak = browser.post(
        f"/checkout/{token}/register",
        {
            "email": "new@mail.example.com",
            "first_name": "Ada",
            "last_name": "Obi",
            "phone": "+2348012345678",
            "password": "123",
        },
    )
    taken = register_on_page(browser, token, email="taken@mail.example.com")

    assert weak.status_code == 400
    assert "This password is too short" in text(weak)
    assert taken.status_code == 409
    assert "already exists" in text(taken)


def test_a_wrong_password_is_refused_on_the_page(browser, merchant_with_key):
    token = open_session(merchant_with_key)
    customer = CustomerFactory()

    response = browser.post(
        f"/checkout/{token}/sign-in",
        {"email": customer.email, "password": "wrong-password"},
    )

    assert response.status_code == 401
    assert "The e-mail address or password is incorrect." in text(response)


def test_signing_in_with_an_existing_account(browser, merchant_with_key):
    token = open_session(merchant_with_key)
    customer = CustomerFactory()

    response = browser.post(
        f"/checkout/{token}/sign-in", {"email": customer.email, "password": PASSWORD}
    )

    assert response.status_code == 303
    assert f"Signed in as {customer.email}" in text(browser.get(f"/checkout/{token}"))


@pytest.mark.parametrize("form", ["sign-in", "register"])
def test_a_password_posted_on_the_checkout_stays_out_of_error_reports(
    browser, merchant_with_key, form
):
    token = open_session(merchant_with_key)

    response = browser.post(
        f"/checkout/{token}/{form}",
        {"email": "ada@mail.example.com", "password": "not-for-logs"},
    )

    assert response.status_code in (400, 401)
    assert response.wsgi_request.sensitive_post_parameters == ("password",)


def test_the_live_preview_answers_for_the_signed_in_customer(
    browser, merchant_with_key
):
    token = open_session(merchant_with_key, amount=100_001)
    register_on_page(browser, token)

    ok = browser.get(
        f"/checkout/{token}/preview",
        {"schedule_type": "monthly", "installment_count": "3"},
    )
    too_many = browser.get(
        f"/checkout/{token}/preview",
        {"schedule_type": "monthly", "installment_count": "9"},
    )
    anonymous = Client().get(f"/checkout/{token}/preview")

    data = ok.json()["data"]
    assert data["deposit_amount"] == 30_001
    assert data["deposit"] == "₦300.01"
    assert [item["amount"] for item in data["installments"]] == [23_334, 23_333, 23_333]
    assert data["pay_label"] == "Pay ₦300.01 now"
    # An out-of-range choice falls back to an allowed one, never a 500.
    assert too_many.status_code == 200
    assert anonymous.status_code == 409


def test_the_whole_checkout_on_the_pages(browser, merchant_with_key):
    token = open_session(merchant_with_key)
    register_on_page(browser, token)
    method_id = add_card_on_page(browser, token)

    chosen = browser.get(f"/checkout/{token}?method={method_id}")
    assert f'value="{method_id}" checked' in text(chosen)
    paid = pay_on_page(browser, token, method_id)

    assert paid.status_code == 303
    assert paid["Location"] == f"/checkout/{token}/done"
    done = browser.get(paid["Location"])
    page = text(done)
    plan = PaymentPlan.objects.get()
    assert "Deposit paid" in page and "₦750.00" in page
    for installment in plan.installments.all():
        assert f'data-due-date="{installment.due_date:%Y-%m-%d}"' in page
    assert 'href="/account/" id="continue"' in page
    assert f'data-plan-id="{plan.public_id}"' in page
    assert plan.status == "active"
    # Coming back to the paid checkout shows the plan again, not a second payment.
    again = browser.get(f"/checkout/{token}")
    assert again.status_code == 302 and again["Location"].endswith("/done")


def test_a_declined_deposit_shows_the_reason_and_keeps_the_checkout_open(
    browser, merchant_with_key
):
    token = open_session(merchant_with_key)
    register_on_page(browser, token)
    method_id = add_card_on_page(browser, token, CARD_POOR)

    response = pay_on_page(browser, token, method_id)

    assert response.status_code == 402
    assert "insufficient funds" in text(response)
    assert CheckoutSession.objects.get(token=token).status == "open"
    # Another card pays.
    good = add_card_on_page(browser, token)
    assert pay_on_page(browser, token, good).status_code == 303
    assert deposit_charges().count() == 2


def test_paying_with_another_customers_method_fails_on_the_page(
    browser, merchant_with_key
):
    token = open_session(merchant_with_key)
    register_on_page(browser, token)
    other = Client()
    other_token = open_session(merchant_with_key, order_reference="ORD-2")
    register_on_page(other, other_token, email="bola@mail.example.com")
    foreign = add_card_on_page(other, other_token)

    response = pay_on_page(browser, token, foreign)

    assert response.status_code == 404
    assert "No payment method with this id belongs to you." in text(response)
    assert deposit_charges().count() == 0


def test_a_paid_checkout_shows_already_paid_to_anyone_else(browser, merchant_with_key):
    token = open_session(merchant_with_key)
    register_on_page(browser, token)
    pay_on_page(browser, token, add_card_on_page(browser, token))

    anonymous = Client().get(f"/checkout/{token}")
    done_for_stranger = Client().get(f"/checkout/{token}/done")

    assert anonymous.status_code == 200
    assert "This order is already paid" in text(anonymous)
    assert done_for_stranger.status_code == 303


def test_an_active_payment_link_opens_a_fresh_session(browser, merchant_with_key):
    link = PaymentLink.objects.create(
        merchant=merchant_with_key.merchant,
        title="Office chair",
        amount=4_500_000,
        currency="NGN",
        redirect_url="https://shop.example.com/thanks",
    )

    first = browser.get(f"/l/{link.slug}")
    second = browser.get(f"/l/{link.slug}")

    assert first.status_code == 302
    assert first["Location"] != second["Location"]
    token = first["Location"].removeprefix("/checkout/")
    session = CheckoutSession.objects.get(token=token)
    assert (session.amount, session.title, session.payment_link) == (
        4_500_000,
        "Office chair",
        link,
    )
    assert session.order_reference.startswith(f"{link.public_id}-")
    assert "Office chair" in text(browser.get(first["Location"]))


def test_after_paying_through_a_link_the_customer_continues_to_its_redirect_url(
    browser, merchant_with_key
):
    link = PaymentLink.objects.create(
        merchant=merchant_with_key.merchant,
        title="Office chair",
        amount=4_500_000,
        currency="NGN",
        redirect_url="https://shop.example.com/thanks",
    )
    token = browser.get(f"/l/{link.slug}")["Location"].removeprefix("/checkout/")
    register_on_page(browser, token)

    pay_on_page(browser, token, add_card_on_page(browser, token))

    done = text(browser.get(f"/checkout/{token}/done"))
    assert 'href="https://shop.example.com/thanks" id="continue"' in done


@pytest.mark.parametrize("state", ["inactive", "unknown", "merchant suspended"])
def test_an_unavailable_link_shows_a_404_page(browser, merchant_with_key, state):
    link = PaymentLink.objects.create(
        merchant=merchant_with_key.merchant,
        title="Office chair",
        amount=4_500_000,
        currency="NGN",
        is_active=state != "inactive",
    )
    if state == "merchant suspended":
        merchant_with_key.merchant.status = "suspended"
        merchant_with_key.merchant.save()
    slug = "nope" if state == "unknown" else link.slug

    response = browser.get(f"/l/{slug}")

    assert response.status_code == 404
    assert "This payment link is no longer available" in text(response)
    assert CheckoutSession.objects.count() == 0


def test_widget_js_is_served_as_javascript(browser, db):
    response = browser.get("/widget.js")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    body = response.content.decode()
    assert "window.InstallmentsCheckout = { open: open }" in body
    assert "event.origin !== origin" in body  # only the service's own messages


def test_the_demo_page_embeds_the_widget(browser, merchant_with_key):
    token = open_session(merchant_with_key)

    response = browser.get("/demo/", {"session_token": token})

    assert response.status_code == 200
    page = text(response)
    assert '<script src="/widget.js"></script>' in page
    assert f'value="{token}"' in page


def test_a_checkout_for_a_suspended_merchant_is_closed(browser, merchant_with_key):
    token = open_session(merchant_with_key)
    merchant_with_key.merchant.status = "suspended"
    merchant_with_key.merchant.save()

    response = browser.get(f"/checkout/{token}")

    assert response.status_code == 404
    assert "not available" in text(response)


def test_a_merchant_whose_plan_settings_leave_no_count_shows_why(browser, db):
    owner = make_merchant_with_key(min_installments=5, max_installments=12)
    token = open_session(owner)
    browser.post(
        f"/checkout/{token}/register",
        {
            "email": "c@mail.example.com",
            "first_name": "C",
            "last_name": "D",
            "phone": "+2348012345678",
            "password": PASSWORD,
        },
    )
    Customer.objects.filter(email="c@mail.example.com").update(score=350)  # tier C

    page = text(browser.get(f"/checkout/{token}"))

    assert "No installment plan is available" in page


def test_the_step_to_take_comes_first_on_the_pay_page(browser, merchant_with_key):
    """Issue 25 item 11: a new customer saw the disabled Pay button before
    "Add a payment method". Without a method, adding one comes first; with
    one, paying comes first and adding another after it."""
    token = open_session(merchant_with_key)
    register_on_page(browser, token)

    page = browser.get(f"/checkout/{token}").content.decode()

    add = page.index('<h2 id="add-h">Add a payment method</h2>')
    assert add < page.index('id="pay-button"')
    assert add < page.index('<h2 id="plan-h">')
    assert re.search(r'id="pay-button"[^>]*disabled', page, re.S)

    add_card_on_page(browser, token)
    page = browser.get(f"/checkout/{token}").content.decode()

    assert "Add a payment method</h2>" not in page
    pay = page.index('id="pay-button"')
    assert pay < page.index('<h2 id="add-h">Add another payment method</h2>')
    assert not re.search(r'id="pay-button"[^>]*disabled', page, re.S)


def test_registering_at_checkout_offers_the_phone_number_for_text_messages(
    browser, merchant_with_key
):
    """Issue 25 item 11: the number typed at checkout was not offered for text
    messages. A box offers it (unticked: texting is the customer's choice);
    ticked, reminders and receipts go to it, as if added on the profile."""
    token = open_session(merchant_with_key)
    form = text(browser.get(f"/checkout/{token}"))
    assert "Also text me payment reminders and receipts at this number" in form
    assert re.search(r'<input type="checkbox" name="sms_consent"(?![^>]*checked)', form)

    response = browser.post(
        f"/checkout/{token}/register",
        {
            "email": "ada@mail.example.com",
            "first_name": "Ada",
            "last_name": "Obi",
            "phone": "08031234567",
            "sms_consent": "on",
            "password": PASSWORD,
        },
    )

    assert response.status_code == 303
    customer = Customer.objects.get(email="ada@mail.example.com")
    assert (customer.phone, customer.sms_phone) == ("08031234567", "+2348031234567")
    # The consent to texts is recorded: when, and that it was given here.
    assert customer.sms_consent_source == "checkout"
    assert customer.sms_consent_at is not None
    profile = text(browser.get("/account/profile/"))
    assert "to <strong>+2348031234567</strong>" in profile


def test_without_the_box_ticked_the_number_is_not_texted(browser, merchant_with_key):
    token = open_session(merchant_with_key)

    assert register_on_page(browser, token).status_code == 303

    customer = Customer.objects.get(email="ada@mail.example.com")
    assert customer.phone == "+2348012345678"
    assert customer.sms_phone == ""


def test_a_number_that_cannot_get_texts_is_refused_only_with_the_box_ticked(
    browser, merchant_with_key
):
    token = open_session(merchant_with_key)
    body = {
        "email": "ada@mail.example.com",
        "first_name": "Ada",
        "last_name": "Obi",
        "phone": "+442079460958",
        "sms_consent": "on",
        "password": PASSWORD,
    }

    refused = browser.post(f"/checkout/{token}/register", body)

    assert refused.status_code == 400
    page = text(refused)
    phone_field = page[page.index('data-field="phone"') :]
    phone_field = phone_field[: phone_field.index('data-field="sms_consent"')]
    assert "Only Nigerian mobile numbers (+234) can receive our text messages." in (
        phone_field
    )
    assert not Customer.objects.filter(email="ada@mail.example.com").exists()

    body.pop("sms_consent")
    assert browser.post(f"/checkout/{token}/register", body).status_code == 303
    assert Customer.objects.get(email="ada@mail.example.com").sms_phone == ""
