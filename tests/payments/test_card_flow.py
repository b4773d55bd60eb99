"""Card redirect flow: endpoints 12 and 13 with the sandbox's authorization page."""

from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test import override_settings
from rest_framework.test import APIClient

from payments.models import (
    CardSetup,
    PaymentMethod,
    ProcessorCharge,
    ProcessorRefund,
    SandboxRefund,
)

from .conftest import (
    CALLBACK_URL,
    CARD_DECLINED,
    CARD_OK,
    CARD_POOR,
    add_card,
    initialize_card,
    reference_from_redirect,
    submit_card_form,
    verify_card,
)

pytestmark = pytest.mark.django_db


def test_the_whole_redirect_flow_runs_over_plain_http(alice, committed):
    # 1. The app asks for an authorization URL.
    started = alice.post(
        "/api/v1/payment-methods/initialize-card",
        {
            "customer_id": alice.id,
            "callback_url": "https://shop.example.com/cards/done?step=2",
            "is_default": True,
        },
    )
    assert started.status_code == 200
    body = started.json()
    assert set(body) == {"ok", "authorization_url", "reference"}
    assert body["ok"] is True

    # 2. The customer's browser opens it: a card form, no login, no CSRF token.
    browser = APIClient(enforce_csrf_checks=True)
    page = browser.get(urlsplit(body["authorization_url"]).path)
    assert page.status_code == 200
    assert b'name="card_number"' in page.content
    assert b"NGN 50.00" in page.content  # the 5000 kobo verification charge

    # 3. The card form is submitted; the processor redirects to the callback.
    redirect = submit_card_form(
        browser, body["authorization_url"], "4084 0840 8408 4081"
    )
    assert redirect.status_code == 302
    location = urlsplit(redirect["Location"])
    assert location._replace(query="").geturl() == "https://shop.example.com/cards/done"
    assert parse_qs(location.query) == {"step": ["2"], "reference": [body["reference"]]}

    # 4. The frontend verifies with the reference from the callback URL.
    with committed():
        verified = verify_card(
            alice, reference_from_redirect(redirect), is_default=True
        )
    assert verified.status_code == 200
    card = verified.json()["data"]

    # 5. The card is listed.
    assert alice.methods() == [card]
    assert card["id"].startswith("pm_")
    assert card["customer_id"] == alice.id
    assert card["label"] == "Visa •••• 4081"
    assert card["last4"] == "4081"
    assert card["is_default"] is True
    assert card["created_at"].endswith("Z")


def test_the_verification_charge_is_refunded_and_both_movements_are_recorded(
    alice, committed
):
    with committed():
        card = add_card(alice, CARD_OK)

    charge = ProcessorCharge.objects.get()
    assert charge.purpose == ProcessorCharge.Purpose.CARD_VERIFICATION
    assert (charge.amount, charge.currency, charge.status) == (5000, "NGN", "success")
    assert charge.payment_method.public_id == card["id"]
    refund = ProcessorRefund.objects.get()
    assert refund.charge == charge
    assert (refund.amount, refund.status) == (5000, "processed")
    # ...and the processor itself gave the money back.
    assert SandboxRefund.objects.get().transaction.reference == charge.reference


def test_the_authorization_code_is_stored_encrypted(alice):
    card = add_card(alice)

    method = PaymentMethod.objects.get(public_id=card["id"])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT authorization_code FROM payments_paymentmethod WHERE id = %s",
            [method.pk],
        )
        (stored,) = cursor.fetchone()
    assert method.authorization_code.startswith("AUTH_")
    assert method.authorization_code not in stored


def test_verify_twice_returns_the_same_card_and_records_one_charge(alice, committed):
    started = initialize_card(alice)
    reference = reference_from_redirect(
        submit_card_form(APIClient(), started["authorization_url"], CARD_OK)
    )

    with committed():
        first = verify_card(alice, reference).json()["data"]
        second = verify_card(alice, reference).json()["data"]

    assert first == second
    assert ProcessorCharge.objects.count() == 1
    assert ProcessorRefund.objects.count() == 1


def test_saving_the_same_card_twice_keeps_one_method_with_the_fresh_authorization(
    alice, committed
):
    with committed():
        first = add_card(alice, CARD_OK)
        old_code = PaymentMethod.objects.get(public_id=first["id"]).authorization_code
        second = add_card(alice, CARD_OK)

    assert second["id"] == first["id"]
    assert len(alice.methods()) == 1
    method = PaymentMethod.objects.get(public_id=first["id"])
    assert method.authorization_code != old_code
    # Both verification charges happened and both were refunded.
    assert ProcessorCharge.objects.count() == 2
    assert ProcessorRefund.objects.count() == 2


def test_the_first_card_becomes_default_and_is_default_moves_it(alice):
    first = add_card(alice, CARD_OK)
    second = add_card(alice, CARD_POOR)
    assert first["is_default"] is True
    assert second["is_default"] is False

    third = add_card(alice, "4084084084084081", is_default=True)

    assert third["id"] == first["id"]  # the same card: refreshed, made default
    defaults = [m["id"] for m in alice.methods() if m["is_default"]]
    assert defaults == [first["id"]]


def test_verify_before_the_card_form_is_submitted_is_409(alice):
    started = initialize_card(alice)

    response = verify_card(alice, started["reference"])

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "card_not_authorized"


def test_a_declined_card_stays_declined_and_records_the_failed_charge(alice):
    started = initialize_card(alice)
    submit_card_form(APIClient(), started["authorization_url"], CARD_DECLINED)

    first = verify_card(alice, started["reference"])
    again = verify_card(alice, started["reference"])

    assert first.status_code == again.status_code == 402
    assert again.json()["error"]["code"] == "payment_failed"
    charge = ProcessorCharge.objects.get()
    assert charge.status == ProcessorCharge.Status.FAILED
    assert not ProcessorRefund.objects.exists()
    assert CardSetup.objects.get().status == CardSetup.Status.FAILED


def test_a_card_number_that_is_not_a_test_card_is_refused_on_the_page(alice):
    started = initialize_card(alice)

    response = submit_card_form(
        APIClient(), started["authorization_url"], "5555555555554444"
    )

    assert response.status_code == 400
    assert b"not a sandbox test card" in response.content
    # The customer can still use a test card afterwards.
    ok = submit_card_form(APIClient(), started["authorization_url"], CARD_OK)
    assert reference_from_redirect(ok) == started["reference"]


def test_submitting_the_form_again_changes_nothing_and_redirects_again(alice):
    started = initialize_card(alice)
    submit_card_form(APIClient(), started["authorization_url"], CARD_OK)

    again = submit_card_form(APIClient(), started["authorization_url"], CARD_DECLINED)

    assert reference_from_redirect(again) == started["reference"]
    assert verify_card(alice, started["reference"]).status_code == 200


def test_the_sandbox_pages_answer_404_for_unknown_references(api):
    assert api.get("/sandbox/authorize/card-nope").status_code == 404
    assert api.post("/sandbox/mandate/mandate-nope").status_code == 404


def test_a_live_card_started_on_the_sandbox_is_not_saved_once_paystack_is_live(
    alice,
):
    # The sandbox pages serve the test side on every deployment, so they still
    # answer; the live card they authorize could never be charged at Paystack.
    started = initialize_card(alice)
    redirect = submit_card_form(APIClient(), started["authorization_url"], CARD_OK)

    with override_settings(PROCESSOR="paystack"):
        response = verify_card(alice, reference_from_redirect(redirect))

    assert response.status_code == 502
    assert response.json()["error"]["code"] == "processor_error"
    assert not PaymentMethod.objects.filter(customer__public_id=alice.id).exists()


def test_initialize_answers_the_sandbox_page_on_base_url(alice, settings):
    settings.BASE_URL = "https://pay.example.ng"

    started = initialize_card(alice, callback_url=CALLBACK_URL)

    assert started["authorization_url"] == (
        f"https://pay.example.ng/sandbox/authorize/{started['reference']}"
    )


def test_the_sandbox_card_page_may_send_the_customer_to_the_callbacks_site(alice):
    # The form is answered with a redirect to callback_url; Chromium checks the
    # page's form-action on that redirect, so the callback's site is named.
    started = initialize_card(alice)

    response = APIClient().get(urlsplit(started["authorization_url"]).path)

    assert response.status_code == 200
    assert (
        "form-action 'self' https://shop.example.com;"
        in response["Content-Security-Policy"]
    )
