"""Who may call the payment-method endpoints, and what bad input gets."""

import pytest
from rest_framework.test import APIClient

from payments.models import CardSetup, PaymentMethod

from ..conftest import bearer, merchant_jwt
from .conftest import (
    add_bank,
    add_card,
    initialize_card,
    initiate_mandate,
    mandate_step,
    reference_from_redirect,
    submit_card_form,
    verify_card,
)

pytestmark = pytest.mark.django_db


# -- IDOR: customer B and customer A's methods ------------------------------


def test_bob_cannot_list_alices_methods(alice, bob):
    add_card(alice)

    response = bob.get(f"/api/v1/payment-methods/customers/{alice.id}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "customer_not_found"
    assert "pm_" not in response.content.decode()


def test_bob_cannot_verify_into_alices_card_reference(alice, bob):
    started = initialize_card(alice)
    reference = reference_from_redirect(
        submit_card_form(APIClient(), started["authorization_url"], "4084084084084081")
    )

    as_bob = verify_card(bob, reference)
    bob_naming_alice = bob.post(
        "/api/v1/payment-methods/verify-card",
        {"customer_id": alice.id, "reference": reference},
    )

    assert as_bob.status_code == 404
    assert as_bob.json()["error"]["code"] == "reference_not_found"
    assert bob_naming_alice.status_code == 404
    assert bob_naming_alice.json()["error"]["code"] == "customer_not_found"
    assert not PaymentMethod.objects.exists()
    assert CardSetup.objects.get().status == CardSetup.Status.INITIALIZED
    # Alice herself still can.
    assert verify_card(alice, reference).status_code == 200


def test_bob_cannot_step_into_alices_bank_mandate(alice, bob):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]

    response = mandate_step(bob, "submit-otp", reference, otp="123456")

    assert response.status_code == 404
    assert mandate_step(alice, "submit-otp", reference, otp="123456").status_code == 200


def test_bob_cannot_start_a_mandate_or_a_card_for_alice(alice, bob):
    mandate = bob.post(
        f"/api/v1/payment-methods/customers/{alice.id}/initiate-bank-mandate",
        {"bank_code": "044", "account_number": "0123456780", "terms_accepted": True},
    )
    card = bob.post(
        "/api/v1/payment-methods/initialize-card",
        {"customer_id": alice.id, "callback_url": "https://shop.example.com/"},
    )

    assert mandate.status_code == card.status_code == 404


def test_bob_cannot_set_default_on_alices_method(alice, bob):
    first = add_card(alice)
    second = add_bank(alice)
    add_card(bob)

    response = bob.put(f"/api/v1/payment-methods/{second['id']}/default")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "payment_method_not_found"
    assert [m["id"] for m in alice.methods() if m["is_default"]] == [first["id"]]


def test_bob_cannot_delete_alices_method(alice, bob):
    card = add_card(alice)

    response = bob.delete(f"/api/v1/payment-methods/{card['id']}")

    assert response.status_code == 404
    assert [m["id"] for m in alice.methods()] == [card["id"]]


# -- Credentials -------------------------------------------------------------


def test_the_endpoints_need_a_customer_jwt(api, alice, merchant_active):
    path = f"/api/v1/payment-methods/customers/{alice.id}"

    assert api.get(path).status_code == 401
    assert api.get(path, **bearer(merchant_jwt(merchant_active))).status_code == 403
    assert api.get("/api/v1/payment-methods/banks").status_code == 401


# -- Bad input ---------------------------------------------------------------


def assert_readable_400(response, field):
    assert response.status_code == 400, response.content
    body = response.json()
    assert field in body["errors"]
    assert body["detail"].startswith("Invalid input.")
    assert field in body["detail"]
    return body


def test_an_unknown_bank_code_is_400_naming_the_banks_endpoint(alice):
    body = assert_readable_400(
        initiate_mandate(alice, "0123456780", bank_code="999"), "bank_code"
    )

    assert "/api/v1/payment-methods/banks" in body["errors"]["bank_code"][0]


@pytest.mark.parametrize("account_number", ["01234567AB", "012345678", "01234567890"])
def test_an_account_number_that_is_not_ten_digits_is_400(alice, account_number):
    body = assert_readable_400(
        initiate_mandate(alice, account_number), "account_number"
    )

    assert body["errors"]["account_number"] == [
        "account_number must be exactly 10 digits (a NUBAN account number)."
    ]


@pytest.mark.parametrize("otp", ["123", "123456789", "12a456", ""])
def test_an_otp_of_the_wrong_length_or_not_digits_is_400(alice, otp):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]

    body = assert_readable_400(
        mandate_step(alice, "submit-otp", reference, otp=otp), "otp"
    )

    assert body["errors"]["otp"]
    # A malformed OTP is not counted as a wrong one.
    assert mandate_step(alice, "submit-otp", reference, otp="123456").status_code == 200


@pytest.mark.parametrize(
    "callback_url", ["not a url", "javascript:alert(1)", "ftp://x.ng/", 42]
)
def test_a_callback_url_that_is_not_an_http_url_is_400(alice, callback_url):
    response = alice.post(
        "/api/v1/payment-methods/initialize-card",
        {"customer_id": alice.id, "callback_url": callback_url},
    )

    assert_readable_400(response, "callback_url")


@pytest.mark.parametrize(
    "birthday", ["01/04/1990", "2999-01-01", "1990-02-30", "1990-4-1", "19900401"]
)
def test_a_birthday_that_is_not_a_past_date_is_400(alice, birthday):
    reference = initiate_mandate(alice, "0123456781").json()["reference"]

    assert_readable_400(
        mandate_step(alice, "submit-birthday", reference, birthday=birthday), "birthday"
    )


def test_a_phone_that_is_not_digits_is_400(alice):
    reference = initiate_mandate(alice, "0123456782").json()["reference"]

    assert_readable_400(
        mandate_step(alice, "submit-phone", reference, phone="call me maybe"), "phone"
    )


def test_missing_fields_and_unknown_fields_are_400(alice):
    response = alice.post(
        "/api/v1/payment-methods/verify-card",
        {"customer_id": alice.id, "refrence": "x"},
    )

    body = assert_readable_400(response, "reference")
    assert body["errors"]["refrence"] == ["Unknown field."]


def test_is_default_must_be_a_json_boolean(alice):
    response = initiate_mandate(alice, "0123456780", is_default="yes")

    assert_readable_400(response, "is_default")


def test_an_unknown_method_id_is_404(alice):
    for response in (
        alice.put("/api/v1/payment-methods/pm_doesnotexist/default"),
        alice.delete("/api/v1/payment-methods/pm_doesnotexist"),
    ):
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "payment_method_not_found"


@pytest.mark.django_db
@pytest.mark.parametrize("method_id", ["pm_%00", "%00", "pm_a%20b"])
def test_odd_bytes_in_a_method_id_are_404_not_500(api, customer, method_id):
    from ..conftest import bearer, customer_jwt

    response = api.put(
        f"/api/v1/payment-methods/{method_id}/default", **bearer(customer_jwt(customer))
    )
    assert response.status_code == 404
