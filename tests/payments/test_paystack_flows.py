"""The endpoints with PROCESSOR=paystack: what the customer sees when Paystack
answers outside the spec's next_action values, fails, or is slow."""

import json
import re
from datetime import timedelta

import pytest
import requests
import time_machine
from django.utils import timezone

from payments.gateway.processors import get_processor
from payments.models import PaymentMethod, ProcessorRefund

from .conftest import initiate_mandate, mandate_step, sign_in, verify_card
from .paystack import AUTHORIZATION, BASE, TRANSACTION, no_refund_yet, ok

pytestmark = pytest.mark.django_db

BANKS_URL = "/api/v1/payment-methods/banks"


def charge_reply(status, **data):
    return ok({"reference": "x", "status": status, **data}, "Charge attempted")


def test_a_card_saved_through_paystack_is_refunded_through_paystack(
    alice, paystack, committed
):
    paystack.add(
        "POST",
        f"{BASE}/transaction/initialize",
        json=ok(
            {
                "authorization_url": "https://checkout.paystack.com/abc",
                "access_code": "abc",
                "reference": "ignored",
            }
        ),
    )
    started = alice.post(
        "/api/v1/payment-methods/initialize-card",
        {"customer_id": alice.id, "callback_url": "https://shop.ng/done"},
    ).json()
    assert started["authorization_url"] == "https://checkout.paystack.com/abc"
    reference = started["reference"]
    paystack.add(
        "GET",
        f"{BASE}/transaction/verify/{reference}",
        json=ok({**TRANSACTION, "reference": reference}),
    )
    no_refund_yet(paystack)
    paystack.add(
        "POST",
        f"{BASE}/refund",
        json=ok(
            {
                "transaction": {"reference": reference},
                "amount": 5000,
                "status": "pending",
                "id": 77,
            }
        ),
    )

    with committed():
        response = verify_card(alice, reference)

    assert response.status_code == 200
    assert response.json()["data"]["label"] == "Visa •••• 4081"
    method = PaymentMethod.objects.get()
    assert method.authorization_code == AUTHORIZATION["authorization_code"]
    assert method.processor == "paystack"
    refund = ProcessorRefund.objects.get()
    assert (refund.refund_id, refund.status) == ("77", "pending")


def test_a_card_paystack_will_not_let_us_charge_again_is_refused_and_refunded(
    alice, paystack, committed
):
    paystack.add(
        "POST",
        f"{BASE}/transaction/initialize",
        json=ok(
            {"authorization_url": "https://checkout.paystack.com/a", "reference": "r"}
        ),
    )
    reference = alice.post(
        "/api/v1/payment-methods/initialize-card",
        {"customer_id": alice.id, "callback_url": "https://shop.ng/done"},
    ).json()["reference"]
    one_off = {
        **TRANSACTION,
        "reference": reference,
        "authorization": {**AUTHORIZATION, "reusable": False},
    }
    paystack.add("GET", f"{BASE}/transaction/verify/{reference}", json=ok(one_off))
    no_refund_yet(paystack)
    paystack.add(
        "POST",
        f"{BASE}/refund",
        json=ok(
            {
                "transaction": {"reference": reference},
                "amount": 5000,
                "status": "processed",
                "id": 9,
            }
        ),
    )

    with committed():
        response = verify_card(alice, reference)

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "card_not_reusable"
    assert not PaymentMethod.objects.exists()
    assert ProcessorRefund.objects.get().amount == 5000
    assert verify_card(alice, reference).json()["error"]["code"] == "card_not_reusable"


@pytest.mark.parametrize("status", ["send_pin", "send_address"])
def test_send_pin_and_send_address_are_a_clear_422(alice, paystack, status):
    paystack.add("POST", f"{BASE}/charge", json=charge_reply(status))

    response = initiate_mandate(alice, "0123456789")

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "unsupported_authorization_step"
    assert status in response.json()["error"]["message"]


def test_a_failed_charge_is_402_with_paystacks_display_text(alice, paystack):
    paystack.add(
        "POST",
        f"{BASE}/charge",
        json=charge_reply(
            "failed", display_text="Account is not eligible for direct debit"
        ),
    )

    response = initiate_mandate(alice, "0123456789")

    assert response.status_code == 402
    assert response.json()["error"] == {
        "code": "payment_failed",
        "message": "Account is not eligible for direct debit",
    }


def test_pending_is_polled_then_a_soft_error_and_verify_later_completes_it(
    alice, paystack
):
    bank = {"status": "pending"}
    paystack.add("POST", f"{BASE}/charge", json=charge_reply("pending"))
    paystack.add_callback(
        "GET",
        re.compile(rf"{BASE}/charge/mandate-.+"),
        callback=lambda request: (200, {}, json.dumps(poll_reply(bank["status"]))),
    )

    response = initiate_mandate(alice, "0123456789")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "payment_pending"
    polls = [
        c
        for c in paystack.calls
        if c.request.method == "GET" and "/charge/" in c.request.url
    ]
    assert len(polls) == get_processor().pending_polls

    bank["status"] = "success"
    reference = alice.customer.bank_mandates.get().reference
    done = mandate_step(alice, "verify", reference)

    assert done.status_code == 200
    assert done.json()["next_action"] == "success"
    assert done.json()["data"]["label"] == "Access Bank ••••6789"


def poll_reply(status):
    data = {"reference": "x", "status": status, "amount": 5000}
    if status == "success":
        data["authorization"] = {**AUTHORIZATION, "channel": "bank", "last4": "6789"}
    return ok(data)


def test_a_paystack_timeout_is_a_504_soft_error_not_a_500(alice, paystack):
    paystack.add("POST", f"{BASE}/charge", body=requests.exceptions.ReadTimeout())

    response = initiate_mandate(alice, "0123456789")

    assert response.status_code == 504
    assert response.json()["error"]["code"] == "processor_timeout"


def test_a_paystack_5xx_is_a_502_soft_error(alice, paystack):
    paystack.add(
        "POST", f"{BASE}/transaction/initialize", status=500, body="Internal Error"
    )

    response = alice.post(
        "/api/v1/payment-methods/initialize-card",
        {"customer_id": alice.id, "callback_url": "https://shop.ng/done"},
    )

    assert response.status_code == 502
    assert response.json()["error"]["code"] == "processor_error"


def test_the_bank_list_comes_from_paystack_and_is_cached_for_an_hour(alice, paystack):
    first = alice.get(BANKS_URL)
    again = alice.get(BANKS_URL)

    assert first.json() == {
        "ok": True,
        "data": [
            {"name": "Access Bank", "code": "044"},
            {"name": "Zenith Bank", "code": "057"},
        ],
    }
    assert again.json() == first.json()
    assert len(paystack.calls) == 1

    # (Access tokens live 15 minutes: sign in again after the clock moves.)
    with time_machine.travel(timezone.now() + timedelta(minutes=59)):
        assert sign_in(alice.customer).get(BANKS_URL).status_code == 200
    assert len(paystack.calls) == 1
    with time_machine.travel(timezone.now() + timedelta(minutes=61)):
        assert sign_in(alice.customer).get(BANKS_URL).status_code == 200
    assert len(paystack.calls) == 2


def test_the_bank_code_of_a_mandate_is_checked_against_paystacks_list(alice, paystack):
    response = initiate_mandate(alice, "0123456789", bank_code="058")

    assert response.status_code == 400
    assert "bank_code" in response.json()["errors"]
