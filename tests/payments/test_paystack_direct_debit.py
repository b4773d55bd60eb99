"""A bank mandate through Paystack whose Charge API authorization cannot be
charged again (issue 14, item 13): it is never saved; the mandate continues with
Paystack's direct-debit authorization (customer/authorization/initialize with
channel direct_debit, the spec's open_url step, then verify on endpoint 18)."""

import json

import pytest
from django.conf import settings
from django.urls import reverse

from payments.models import BankMandate, PaymentMethod, ProcessorCharge, ProcessorRefund

from .conftest import initiate_mandate, mandate_step
from .paystack import AUTHORIZATION, BASE, TRANSACTION, no_refund_yet, ok

pytestmark = pytest.mark.django_db

ACCOUNT = "0123456789"
BANK_AUTHORIZATION = {
    **AUTHORIZATION,
    "authorization_code": "AUTH_bankcharge1",
    "channel": "bank",
    "bank": "Access Bank",
    "last4": "6789",
    "bin": None,
    "brand": None,
    "card_type": None,
    "exp_month": None,
    "exp_year": None,
    "signature": None,
}
DIRECT_DEBIT_REFERENCE = "dfbzfotsrbv4n5s82t4mp5b5mfn51h"
REDIRECT_URL = "https://link.paystack.co/82t4mp5b5mfn51h"
INITIALIZE_URL = f"{BASE}/customer/authorization/initialize"
VERIFY_URL = f"{BASE}/customer/authorization/verify/{DIRECT_DEBIT_REFERENCE}"
INITIALIZED = ok(
    {
        "redirect_url": REDIRECT_URL,
        "access_code": "82t4mp5b5mfn51h",
        "reference": DIRECT_DEBIT_REFERENCE,
    },
    "Authorization initialized",
)


def verified(active: bool, code="AUTH_JV4T9Wawdj"):
    return ok(
        {
            "authorization_code": code,
            "channel": "direct_debit",
            "bank": "Access Bank",
            "active": active,
            "customer": {"code": "CUS_24lze1c8i2zl76y", "email": "alice@x.ng"},
        },
        "Authorization retrieved successfully",
    )


def bank_charge_ends_with(paystack, *, reusable: bool):  # noqa: F811
    """POST /charge asks for the OTP; the OTP ends the charge with success and
    an authorization whose `reusable` is as given."""
    paystack.add(
        "POST",
        f"{BASE}/charge",
        json=ok(
            {
                "reference": "x",
                "status": "send_otp",
                "display_text": "Please enter the OTP sent to 080****5678",
            },
            "Charge attempted",
        ),
    )
    paystack.add(
        "POST",
        f"{BASE}/charge/submit_otp",
        json=ok(
            {
                **TRANSACTION,
                "reference": "x",
                "channel": "bank",
                "authorization": {**BANK_AUTHORIZATION, "reusable": reusable},
            },
            "Charge attempted",
        ),
    )
    no_refund_yet(paystack)
    paystack.add(
        "POST",
        f"{BASE}/refund",
        json=ok(
            {
                "transaction": {"reference": "x"},
                "amount": 5000,
                "status": "pending",
                "id": 41,
            }
        ),
    )


def start(alice, **extra):
    reference = initiate_mandate(alice, ACCOUNT, **extra).json()["reference"]
    return reference, mandate_step(alice, "submit-otp", reference, otp="123456")


def calls_to(paystack, method, url):  # noqa: F811
    return [
        c
        for c in paystack.calls
        if c.request.method == method and c.request.url.split("?")[0] == url
    ]


def test_a_bank_charge_ending_with_a_reusable_authorization_is_saved_as_before(
    alice,
    paystack,  # noqa: F811
):
    bank_charge_ends_with(paystack, reusable=True)

    reference, done = start(alice)

    assert done.status_code == 200
    assert done.json()["next_action"] == "success"
    method = PaymentMethod.objects.get()
    assert method.authorization_code == "AUTH_bankcharge1"
    assert (method.type, method.label) == ("bank", "Access Bank ••••6789")
    assert not calls_to(paystack, "POST", INITIALIZE_URL)


def test_a_one_off_bank_authorization_is_not_saved_and_the_customer_opens_the_direct_debit_page(  # noqa: E501
    alice,
    paystack,  # noqa: F811
    committed,
):
    bank_charge_ends_with(paystack, reusable=False)
    paystack.add("POST", INITIALIZE_URL, json=INITIALIZED)

    with committed():
        reference, step = start(alice)

    assert step.status_code == 200
    body = step.json()
    assert body["ok"] is True
    assert body["next_action"] == "open_url"
    assert body["url"] == REDIRECT_URL
    assert body["reference"] == reference  # the customer keeps our reference
    assert "direct debit" in body["display_text"].lower()
    assert "data" not in body
    [initialize] = calls_to(paystack, "POST", INITIALIZE_URL)
    assert json.loads(initialize.request.body) == {
        "email": alice.customer.email,
        "channel": "direct_debit",
        "callback_url": settings.CONSUMER_URL + reverse("mandate-authorized"),
        "account": {"number": ACCOUNT, "bank_code": "044"},
    }
    assert not PaymentMethod.objects.exists()
    mandate = BankMandate.objects.get(reference=reference)
    assert mandate.status == BankMandate.Status.IN_PROGRESS
    assert mandate.direct_debit_reference == DIRECT_DEBIT_REFERENCE
    # The 5000 kobo the bank step took is recorded and goes back at once.
    charge = ProcessorCharge.objects.get(reference=reference)
    assert (charge.status, charge.amount, charge.payment_method) == (
        "success",
        5000,
        None,
    )
    assert ProcessorRefund.objects.get().charge == charge


def test_verify_saves_the_mandate_with_the_active_direct_debit_authorization(
    alice,
    paystack,  # noqa: F811
):
    bank_charge_ends_with(paystack, reusable=False)
    paystack.add("POST", INITIALIZE_URL, json=INITIALIZED)
    reference, _ = start(alice, is_default=True)
    paystack.add("GET", VERIFY_URL, json=verified(active=True))

    done = mandate_step(alice, "verify", reference)

    assert done.status_code == 200, done.content
    assert done.json()["next_action"] == "success"
    method = PaymentMethod.objects.get()
    assert done.json()["data"]["id"] == method.public_id
    assert method.authorization_code == "AUTH_JV4T9Wawdj"
    assert (method.type, method.bank_code, method.label) == (
        "bank",
        "044",
        "Access Bank ••••6789",
    )
    assert method.is_default
    assert len(calls_to(paystack, "GET", VERIFY_URL)) == 1
    assert ProcessorCharge.objects.count() == 1  # no second verification charge
    # A verify repeated after success answers the saved method, asking nobody.
    again = mandate_step(alice, "verify", reference)
    assert again.json() == done.json()
    assert len(calls_to(paystack, "GET", VERIFY_URL)) == 1


@pytest.mark.parametrize(
    "reply",
    [
        {"json": verified(active=False)},
        {
            "status": 404,
            "json": {
                "status": False,
                "message": "Authorization does not exist or does not belong to "
                "integration",
            },
        },
    ],
    ids=["not-active-yet", "unknown-to-paystack"],
)
def test_verify_before_the_direct_debit_is_active_saves_nothing_and_says_why(
    alice,
    paystack,  # noqa: F811
    reply,
):
    bank_charge_ends_with(paystack, reusable=False)
    paystack.add("POST", INITIALIZE_URL, json=INITIALIZED)
    reference, _ = start(alice)
    paystack.add("GET", VERIFY_URL, **reply)

    response = mandate_step(alice, "verify", reference)

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "mandate_not_authorized"
    assert "direct debit" in error["message"]
    assert "verify again" in error["message"]
    assert not PaymentMethod.objects.exists()
    mandate = BankMandate.objects.get(reference=reference)
    assert (mandate.status, mandate.next_action) == ("in_progress", "open_url")

    # Once Paystack says active, the same reference completes.
    paystack.replace("GET", VERIFY_URL, json=verified(active=True))
    done = mandate_step(alice, "verify", reference)
    assert done.status_code == 200
    assert PaymentMethod.objects.get().authorization_code == "AUTH_JV4T9Wawdj"


def test_an_active_authorization_without_a_code_saves_nothing(
    alice,
    paystack,  # noqa: F811
):
    bank_charge_ends_with(paystack, reusable=False)
    paystack.add("POST", INITIALIZE_URL, json=INITIALIZED)
    reference, _ = start(alice)
    paystack.add("GET", VERIFY_URL, json=verified(active=True, code=None))

    response = mandate_step(alice, "verify", reference)

    assert response.status_code == 409
    assert not PaymentMethod.objects.exists()


def test_a_direct_debit_initialize_that_failed_is_asked_again_by_verify(
    alice,
    paystack,  # noqa: F811
):
    bank_charge_ends_with(paystack, reusable=False)
    paystack.add("POST", INITIALIZE_URL, status=503, body="unavailable")

    reference, step = start(alice)

    assert step.status_code == 502
    assert "verify" in step.json()["error"]["message"]
    assert not PaymentMethod.objects.exists()
    paystack.replace("POST", INITIALIZE_URL, json=INITIALIZED)

    again = mandate_step(alice, "verify", reference)

    assert again.status_code == 200, again.content
    assert (again.json()["next_action"], again.json()["url"]) == (
        "open_url",
        REDIRECT_URL,
    )
    assert not PaymentMethod.objects.exists()
    assert ProcessorCharge.objects.count() == 1


def test_other_steps_after_the_bank_step_are_refused_while_direct_debit_is_pending(
    alice,
    paystack,  # noqa: F811
):
    bank_charge_ends_with(paystack, reusable=False)
    paystack.add("POST", INITIALIZE_URL, json=INITIALIZED)
    reference, _ = start(alice)

    response = mandate_step(alice, "submit-otp", reference, otp="123456")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "mandate_step_mismatch"
    assert len(calls_to(paystack, "POST", f"{BASE}/charge/submit_otp")) == 1
    assert not PaymentMethod.objects.exists()
