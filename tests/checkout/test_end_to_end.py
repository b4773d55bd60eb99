"""The whole checkout over HTTP on the sandbox, playing the merchant and the
customer: session -> registration -> card by redirect -> completion -> signed
webhooks at the merchant's own receiver (a real HTTP server on 127.0.0.1) ->
the merchant's wallet."""

import hashlib
import hmac
import json

import pytest
from rest_framework.test import APIClient

from payments.ledger.selectors import wallet_available_balance

from ..conftest import make_merchant_with_key
from ..webhooks.conftest import SECRET
from .conftest import (
    SESSIONS_URL,
    add_card,
    complete,
    register,
    session_body,
)

pytestmark = pytest.mark.django_db(transaction=True)

AMOUNT = 1_000_000  # ₦10,000: tier B, deposit 30% = 300,000 kobo


def verified_events(receiver) -> list[dict]:
    """What the merchant's server accepts: bodies whose signature checks out."""
    accepted = []
    for item in receiver.received:
        expected = hmac.new(SECRET.encode(), item.body, hashlib.sha256).hexdigest()
        received = item.headers["x-service-signature"]
        assert len(received) == len(expected)
        assert hmac.compare_digest(received, expected)
        accepted.append(json.loads(item.body))
    return accepted


def test_a_merchant_and_a_customer_check_out_end_to_end_on_the_sandbox(receiver):
    # The merchant's backend opens a session with its API key.
    merchant = make_merchant_with_key(webhook_url=receiver.url, webhook_secret=SECRET)
    opened = APIClient().post(
        SESSIONS_URL,
        session_body(merchant.merchant, amount=AMOUNT, order_reference="ORD-E2E-1"),
        format="json",
        **merchant.headers,
    )
    assert opened.status_code == 201, opened.content
    token = opened.json()["data"]["session_token"]

    # The customer registers, adds the sandbox card through the redirect flow
    # and completes with 3 monthly installments.
    ada = register("ada.e2e@mail.example.com")
    card = add_card(ada, "4084084084084081")
    completed = complete(ada, token, card, installment_count=3)

    assert completed.status_code == 201, completed.content
    plan = completed.json()["data"]
    assert plan["status"] == "active"
    assert plan["deposit_amount"] == 300_000
    assert [item["amount"] for item in plan["installments"]] == [233_334] + [
        233_333
    ] * 2

    # The merchant's receiver got the events, each validly signed. They are
    # sent in parallel, so they may arrive in any order.
    events = verified_events(receiver)
    assert sorted(event["eventType"] for event in events) == [
        "debit.scheduled",
        "debit.scheduled",
        "debit.scheduled",
        "goods.release",
        "payment.success",
    ]
    for event in events:
        assert event["eventId"].startswith("evt_")
        assert event["merchantId"] == merchant.merchant.public_id
        assert event["createdAt"].endswith("Z")
    assert {item.headers["x-service-event-id"] for item in receiver.received} == {
        event["eventId"] for event in events
    }
    [success] = [event for event in events if event["eventType"] == "payment.success"]
    [release] = [event for event in events if event["eventType"] == "goods.release"]
    debits = sorted(
        (event for event in events if event["eventType"] == "debit.scheduled"),
        key=lambda event: event["data"]["dueDate"],
    )
    assert success["data"] == {
        "resourceType": "payment_plan",
        "resourceId": plan["id"],
        "orderReference": "ORD-E2E-1",
        "amount": 300_000,
        "currency": "NGN",
        "channel": "card",
    }
    assert [debit["data"] for debit in debits] == [
        {
            "resourceType": "installment",
            "resourceId": installment["id"],
            "paymentPlanId": plan["id"],
            "orderReference": "ORD-E2E-1",
            "amount": installment["amount"],
            "currency": "NGN",
            "dueDate": installment["due_date"],
        }
        for installment in plan["installments"]
    ]
    assert release["data"] == {
        "resourceType": "payment_plan",
        "resourceId": plan["id"],
        "orderReference": "ORD-E2E-1",
    }

    # The wallet holds 97.5% of the deposit.
    assert wallet_available_balance(merchant.merchant) == 300_000 * 975 // 1000

    # Both sides read the same plan.
    as_merchant = APIClient().get(
        f"/api/v1/payment-plans/{plan['id']}", **merchant.headers
    )
    as_customer = ada.get(f"/api/v1/payment-plans/{plan['id']}")
    assert as_merchant.json()["data"] == plan
    assert as_customer.json()["data"] == plan


def test_a_declined_deposit_reaches_the_merchant_as_payment_failed(receiver):
    merchant = make_merchant_with_key(webhook_url=receiver.url, webhook_secret=SECRET)
    opened = APIClient().post(
        SESSIONS_URL,
        session_body(merchant.merchant, order_reference="ORD-E2E-2"),
        format="json",
        **merchant.headers,
    )
    token = opened.json()["data"]["session_token"]
    ada = register("ada.poor@mail.example.com")
    card = add_card(ada, "4084080000000409")

    declined = complete(ada, token, card)

    assert declined.status_code == 402
    assert declined.json()["error"]["code"] == "payment_failed"
    [event] = verified_events(receiver)
    assert event["eventType"] == "payment.failed"
    assert event["data"]["reason"] == "insufficient_funds"
    assert event["data"]["orderReference"] == "ORD-E2E-2"
    assert event["data"]["resourceType"] == "payment_plan"
    assert wallet_available_balance(merchant.merchant) == 0
