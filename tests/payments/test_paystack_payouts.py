"""Payouts with PROCESSOR=paystack: the documented requests, and settlement only
by the `transfer.success` event once `GET /transfer/verify/:reference` agrees."""

import json
from io import StringIO

import pytest
import responses
from django.core.management import call_command
from rest_framework.test import APIClient

from payments.gateway.processors import get_processor
from payments.models import Payout, PayoutRecipient

from ..conftest import bearer, make_merchant_with_key, merchant_jwt
from .conftest import credit_wallet, signed_post
from .paystack import ok

pytestmark = pytest.mark.django_db

BASE = "https://api.paystack.co"


@pytest.fixture
def paystack(settings, fresh_cache):
    settings.PROCESSOR = "paystack"
    settings.PAYSTACK_BASE_URL = BASE
    settings.PAYSTACK_SECRET_KEY = "sk_test_payouts"
    get_processor()
    with responses.RequestsMock(assert_all_requests_are_fired=False) as fake:
        fake.add(
            "GET",
            f"{BASE}/bank",
            json=ok([{"name": "Guaranty Trust Bank", "code": "058"}]),
        )
        fake.add(
            "GET",
            f"{BASE}/bank/resolve",
            json=ok(
                {
                    "account_number": "0001234567",
                    "account_name": "MY STORE LIMITED",
                    "bank_id": 9,
                }
            ),
        )
        fake.add(
            "POST",
            f"{BASE}/transferrecipient",
            json=ok(
                {
                    "active": True,
                    "currency": "NGN",
                    "name": "MY STORE LIMITED",
                    "recipient_code": "RCP_m7ljkv8leesep7p",
                    "type": "nuban",
                    "details": {
                        "account_number": "0001234567",
                        "account_name": "MY STORE LIMITED",
                        "bank_code": "058",
                        "bank_name": "Guaranty Trust Bank",
                    },
                },
                "Transfer recipient created successfully",
            ),
        )
        yield fake


def transfer_reply(reference, amount, status):
    return ok(
        {
            "reference": reference,
            "integration": 428626,
            "domain": "test",
            "amount": amount,
            "currency": "NGN",
            "source": "balance",
            "reason": "Installment collections payout",
            "recipient": 28425418,
            "status": status,
            "transfer_code": "TRF_1ptvuv321ahaa7q",
            "id": 14938,
        },
        "Transfer has been queued",
    )


def requests_to(fake, method, path):
    return [
        call
        for call in fake.calls
        if call.request.method == method
        and call.request.url.split("?")[0] == BASE + path
    ]


def test_a_paystack_payout_settles_on_the_verified_transfer_success_event(
    paystack, api, committed
):
    payee = make_merchant_with_key()
    account = api.put(
        f"/api/v1/merchant/{payee.merchant.public_id}/payout-account",
        {"bank_code": "058", "account_number": "0001234567"},
        format="json",
        **bearer(merchant_jwt(payee.merchant)),
    )
    assert account.json()["data"]["payout_account_name"] == "MY STORE LIMITED"
    net = credit_wallet(payee.merchant, 500_000)

    def transfer_callback(request):
        body = json.loads(request.body)
        return (
            200,
            {},
            json.dumps(transfer_reply(body["reference"], body["amount"], "pending")),
        )

    paystack.add_callback("POST", f"{BASE}/transfer", callback=transfer_callback)
    with committed():
        call_command("run_payouts", stdout=StringIO())

    payout = Payout.objects.get()
    assert (payout.status, payout.transfer_code) == (
        "processing",
        "TRF_1ptvuv321ahaa7q",
    )
    [sent] = requests_to(paystack, "POST", "/transfer")
    assert json.loads(sent.request.body) == {
        "source": "balance",
        "amount": net,
        "currency": "NGN",
        "recipient": "RCP_m7ljkv8leesep7p",
        "reference": payout.public_id,
        "reason": "Installment collections payout",
    }
    assert PayoutRecipient.objects.get().recipient_code == "RCP_m7ljkv8leesep7p"

    paystack.add(
        "GET",
        f"{BASE}/transfer/verify/{payout.public_id}",
        json=transfer_reply(payout.public_id, net, "success"),
    )
    event = {
        "event": "transfer.success",
        "data": {"reference": payout.public_id, "amount": net, "status": "success"},
    }
    with committed():
        reply = signed_post(APIClient(), "/api/v1/webhooks/paystack", event)
    assert reply.status_code == 200

    payout.refresh_from_db()
    assert payout.status == "paid"
    assert (
        len(requests_to(paystack, "GET", f"/transfer/verify/{payout.public_id}")) == 1
    )


def test_a_paystack_refusal_of_the_first_request_returns_the_money(paystack, committed):
    payee = make_merchant_with_key()
    merchant = payee.merchant
    merchant.payout_bank_code, merchant.payout_account_number = "058", "0001234567"
    merchant.payout_account_name = "MY STORE LIMITED"
    merchant.save()
    credit_wallet(merchant, 500_000)
    paystack.add(
        "POST",
        f"{BASE}/transfer",
        status=400,
        json={
            "status": False,
            "message": "Your balance is not enough to fulfil this request",
        },
    )

    with committed():
        call_command("run_payouts", stdout=StringIO())

    payout = Payout.objects.get()
    assert payout.status == "failed"
    assert "balance is not enough" in payout.failure_reason
    assert requests_to(paystack, "GET", f"/transfer/verify/{payout.public_id}") == []
