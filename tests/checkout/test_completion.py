"""`POST /api/v1/checkout/sessions/<token>/complete` (DESIGN sections 7, 8, 11)."""

import json
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from checkout import services
from checkout.models import CheckoutSession
from installments.deposits.models import DepositAttempt
from installments.plans.models import Installment, PaymentPlan
from payments.ledger.fees import platform_fee
from payments.ledger.selectors import wallet_available_balance
from payments.models import LedgerTransaction, PaymentMethod
from webhooks.models import Event

from ..conftest import bearer, customer_jwt, make_merchant_with_key, merchant_jwt
from .conftest import (
    CARD_POOR,
    add_card,
    complete,
    complete_url,
    deposit_charges,
    open_session,
    register,
)

AMOUNT = 250_000  # tier B (new customer): 30% deposit = 75,000; 3 x 58,334/58,333


def events(merchant, kind=None) -> list[dict]:
    rows = Event.objects.filter(merchant=merchant).order_by("id")
    if kind:
        rows = rows.filter(event_type=kind)
    return [json.loads(row.body) for row in rows]


def test_completion_charges_the_deposit_and_answers_201_with_the_plan(
    merchant_with_key, shopper, card
):
    token = open_session(merchant_with_key, amount=AMOUNT)

    response = complete(shopper, token, card)

    assert response.status_code == 201, response.content
    plan = response.json()["data"]
    assert plan["id"].startswith("plan_")
    today = timezone.localdate()
    assert plan | {"id": None, "installments": None, "created_at": None} == {
        "id": None,
        "status": "active",
        "livemode": True,
        "merchant_id": merchant_with_key.merchant.public_id,
        "customer_id": shopper.customer_id,
        "order_reference": "ORD-1001",
        "currency": "NGN",
        "total_amount": AMOUNT,
        "deposit_amount": 75_000,
        "amount_paid": 75_000,
        "amount_remaining": 175_000,
        "amount_refunded": 0,
        "amount_refund_pending": 0,
        "schedule_type": "monthly",
        "installment_count": 3,
        # DESIGN section 15: none chosen.
        "preferred_day": None,
        # DESIGN section 17: a card on file, charged by the engine.
        "collection": "auto",
        "installments": None,
        "refunds": [],
        # DESIGN section 15, rescheduling: none yet, the merchant's one left.
        "reschedules": [],
        "customer_reschedules_left": 1,
        "created_at": None,
    }
    assert [item["amount"] for item in plan["installments"]] == [58_334, 58_333, 58_333]
    assert [item["sequence"] for item in plan["installments"]] == [1, 2, 3]
    assert {item["status"] for item in plan["installments"]} == {"scheduled"}
    assert plan["installments"][0]["due_date"] > today.isoformat()
    assert all(item["id"].startswith("inst_") for item in plan["installments"])
    assert plan["created_at"].endswith("Z")

    session = CheckoutSession.objects.get(token=token)
    assert session.status == "completed" and session.completed_at is not None
    [charge] = deposit_charges()
    assert charge.amount == 75_000
    assert charge.reference == f"{plan['id']}_d1"
    [collection] = LedgerTransaction.objects.filter(kind="collection")
    assert (collection.amount, collection.fee) == (75_000, platform_fee(75_000))
    assert collection.reference == charge.reference
    assert wallet_available_balance(merchant_with_key.merchant) == 75_000 - 1_875


def test_completion_announces_the_deposit_each_installment_and_the_release(
    merchant_with_key, shopper, card
):
    token = open_session(merchant_with_key, amount=AMOUNT)

    plan = complete(shopper, token, card).json()["data"]

    sent = events(merchant_with_key.merchant)
    assert [event["eventType"] for event in sent] == [
        "payment.success",
        "debit.scheduled",
        "debit.scheduled",
        "debit.scheduled",
        "goods.release",
    ]
    assert sent[0]["data"] == {
        "resourceType": "payment_plan",
        "resourceId": plan["id"],
        "orderReference": "ORD-1001",
        "amount": 75_000,
        "currency": "NGN",
        "channel": "card",
    }
    assert [event["data"] for event in sent[1:4]] == [
        {
            "resourceType": "installment",
            "resourceId": item["id"],
            "paymentPlanId": plan["id"],
            "orderReference": "ORD-1001",
            "amount": item["amount"],
            "currency": "NGN",
            "dueDate": item["due_date"],
        }
        for item in plan["installments"]
    ]
    assert sent[4]["data"] == {
        "resourceType": "payment_plan",
        "resourceId": plan["id"],
        "orderReference": "ORD-1001",
    }


@pytest.mark.parametrize("rule", ["on_completion", "after_installments:2"])
def test_no_goods_release_at_checkout_when_the_rule_waits_for_installments(
    shopper, card, rule
):
    owner = make_merchant_with_key(release_rule=rule)
    token = open_session(owner)

    assert complete(shopper, token, card).status_code == 201

    assert events(owner.merchant, "goods.release") == []
    assert PaymentPlan.objects.get().goods_released_at is None


def test_completing_a_completed_session_is_409_and_charges_nothing_more(
    merchant_with_key, shopper, card
):
    token = open_session(merchant_with_key)
    assert complete(shopper, token, card).status_code == 201

    again = complete(shopper, token, card)

    assert again.status_code == 409
    assert again.json()["error"]["code"] == "session_completed"
    assert deposit_charges().count() == 1
    assert len(events(merchant_with_key.merchant, "payment.success")) == 1


def test_completing_after_thirty_minutes_is_409_session_expired(
    merchant_with_key, shopper, card
):
    token = open_session(merchant_with_key)

    with time_machine.travel(timezone.now() + timedelta(minutes=30, seconds=1)):
        shopper.sign_in_again()
        response = complete(shopper, token, card)

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "session_expired"
    assert deposit_charges().count() == 0
    assert PaymentPlan.objects.count() == 0


def test_completing_just_before_expiry_still_works(merchant_with_key, shopper, card):
    token = open_session(merchant_with_key)

    with time_machine.travel(timezone.now() + timedelta(minutes=29, seconds=50)):
        shopper.sign_in_again()
        response = complete(shopper, token, card)

    assert response.status_code == 201


def test_a_declined_deposit_is_402_payment_failed_and_the_session_stays_open(
    merchant_with_key, shopper
):
    poor_card = add_card(shopper, CARD_POOR)
    token = open_session(merchant_with_key, amount=AMOUNT)

    response = complete(shopper, token, poor_card)

    assert response.status_code == 402
    assert response.json()["error"]["code"] == "payment_failed"
    assert "insufficient funds" in response.json()["error"]["message"]
    plan = PaymentPlan.objects.get()
    [failed] = events(merchant_with_key.merchant)
    assert failed["eventType"] == "payment.failed"
    assert failed["data"] == {
        "resourceType": "payment_plan",
        "resourceId": plan.public_id,
        "orderReference": "ORD-1001",
        "reason": "insufficient_funds",
        "retryable": True,
        "channel": "card",
    }
    assert plan.status == "pending"
    assert plan.installments.count() == 0
    assert CheckoutSession.objects.get(token=token).status_at() == "open"
    assert LedgerTransaction.objects.filter(kind="collection").count() == 0
    assert wallet_available_balance(merchant_with_key.merchant) == 0
    [attempt] = DepositAttempt.objects.all()
    assert (attempt.status, attempt.failure_reason) == ("failed", "insufficient_funds")
    # The card stays saved: only a revoked authorization deactivates a method.
    assert PaymentMethod.objects.get(public_id=poor_card).is_active


def test_after_a_decline_another_method_completes_the_same_plan_with_fresh_terms(
    merchant_with_key, shopper
):
    poor_card = add_card(shopper, CARD_POOR)
    token = open_session(merchant_with_key, amount=AMOUNT)
    assert complete(shopper, token, poor_card).status_code == 402
    good_card = add_card(shopper)

    response = complete(shopper, token, good_card, installment_count=2)

    assert response.status_code == 201, response.content
    plan = response.json()["data"]
    assert PaymentPlan.objects.get().public_id == plan["id"]
    assert plan["installment_count"] == 2
    assert [item["amount"] for item in plan["installments"]] == [87_500, 87_500]
    references = list(deposit_charges().values_list("reference", "status"))
    assert references == [
        (f"{plan['id']}_d1", "failed"),
        (f"{plan['id']}_d2", "success"),
    ]
    kinds = [event["eventType"] for event in events(merchant_with_key.merchant)]
    assert kinds[0] == "payment.failed"
    assert kinds.count("payment.success") == 1
    assert kinds.count("debit.scheduled") == 2


def test_retrying_a_declined_card_uses_a_new_reference_each_time(
    merchant_with_key, shopper
):
    poor_card = add_card(shopper, CARD_POOR)
    token = open_session(merchant_with_key)

    for _ in range(3):
        assert complete(shopper, token, poor_card).status_code == 402

    plan = PaymentPlan.objects.get()
    assert list(deposit_charges().values_list("reference", flat=True)) == [
        f"{plan.public_id}_d1",
        f"{plan.public_id}_d2",
        f"{plan.public_id}_d3",
    ]


def test_the_plan_uses_the_customers_score_and_the_merchants_configuration(shopper):
    owner = make_merchant_with_key(min_deposit_percent=50, max_installments=12)
    customer = shopper.customer
    customer.score = 750  # tier A: 20%, up to 12
    customer.save()
    method = add_card(shopper)
    token = open_session(owner, amount=100_000)

    response = complete(shopper, token, method, installment_count=12)

    assert response.status_code == 201, response.content
    plan = response.json()["data"]
    assert plan["deposit_amount"] == 50_000
    assert len(plan["installments"]) == 12


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"installment_count": 7}, "invalid_installment_count"),
        ({"schedule_type": "weekly"}, "schedule_type_not_allowed"),
    ],
)
def test_plan_rules_are_checked_before_anything_is_charged(
    merchant_with_key, shopper, card, overrides, code
):
    token = open_session(merchant_with_key)

    response = complete(shopper, token, card, **overrides)

    assert response.status_code == 422
    assert response.json()["error"]["code"] == code
    assert deposit_charges().count() == 0


def test_a_customer_below_300_is_not_eligible(merchant_with_key, shopper, card):
    customer = shopper.customer
    customer.score = 299
    customer.save()
    token = open_session(merchant_with_key)

    response = complete(shopper, token, card)

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "customer_not_eligible"


def test_another_customers_payment_method_is_404(merchant_with_key, shopper, card):
    mallory = register("mallory@mail.example.com")
    token = open_session(merchant_with_key)

    response = complete(mallory, token, card)

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "payment_method_not_found"
    assert deposit_charges().count() == 0


@pytest.mark.parametrize("method_id", ["pm_doesnotexist", "pm_\x00", "card", ""])
def test_an_unknown_payment_method_is_404_or_400(merchant_with_key, shopper, method_id):
    token = open_session(merchant_with_key)

    response = complete(shopper, token, method_id)

    assert response.status_code in (400, 404)
    assert deposit_charges().count() == 0


def test_a_deleted_or_revoked_method_cannot_pay(merchant_with_key, shopper, card):
    token = open_session(merchant_with_key)
    PaymentMethod.objects.filter(public_id=card).update(
        status="revoked", is_default=False
    )

    response = complete(shopper, token, card)

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "payment_method_not_found"


@pytest.mark.parametrize("token", ["fcs_unknown", "nope", "fcs_\x00x"])
def test_an_unknown_session_is_404(shopper, card, token):
    response = complete(shopper, token, card)

    assert response.status_code == 404


def test_completion_needs_a_customer_jwt(api, merchant_with_key, shopper, card):
    token = open_session(merchant_with_key)
    body = {"schedule_type": "monthly", "installment_count": 3}
    body["payment_method_id"] = card

    anonymous = api.post(complete_url(token), body, format="json")
    with_key = api.post(
        complete_url(token), body, format="json", **merchant_with_key.headers
    )
    with_merchant_jwt = api.post(
        complete_url(token),
        body,
        format="json",
        **bearer(merchant_jwt(merchant_with_key.merchant)),
    )

    assert anonymous.status_code == 401
    assert with_key.status_code == 403
    assert with_merchant_jwt.status_code == 403


@pytest.mark.parametrize(
    "body",
    [
        {"schedule_type": "monthly", "installment_count": "3"},
        {"schedule_type": "monthly", "installment_count": 3, "extra": 1},
        {"installment_count": 3},
        [],
    ],
)
def test_malformed_bodies_are_400(api, merchant_with_key, customer, body):
    token = open_session(merchant_with_key)
    if isinstance(body, dict):
        body = body | {"payment_method_id": "pm_x"}

    response = api.post(
        complete_url(token), body, format="json", **bearer(customer_jwt(customer))
    )

    assert response.status_code == 400
    assert "detail" in response.json()


def test_a_suspended_merchants_session_cannot_be_completed(
    merchant_with_key, shopper, card
):
    token = open_session(merchant_with_key)
    merchant_with_key.merchant.status = "suspended"
    merchant_with_key.merchant.save()

    response = complete(shopper, token, card)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_not_active"


def test_a_second_session_of_a_paid_order_cannot_be_completed(
    merchant_with_key, shopper, card
):
    first = open_session(merchant_with_key)
    second = open_session(merchant_with_key)
    assert complete(shopper, first, card).status_code == 201

    response = complete(shopper, second, card)

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "order_already_paid"
    assert deposit_charges().count() == 1


def test_an_attempt_whose_answer_was_lost_blocks_payment_until_it_is_verified(
    merchant_with_key, shopper, card, monkeypatch
):
    """A crash after the processor charged and before the outcome was recorded:
    the attempt stays in flight (409), then is settled by verifying its
    reference, so the customer is charged exactly once."""
    from checkout.services import completion

    real_charge = completion.saved_method_charge

    def charge_then_crash(**kwargs):
        real_charge(**kwargs)
        raise ConnectionResetError("worker died")

    monkeypatch.setattr(completion, "saved_method_charge", charge_then_crash)
    token = open_session(merchant_with_key)
    assert complete(shopper, token, card).status_code == 500
    monkeypatch.setattr(completion, "saved_method_charge", real_charge)

    in_flight = complete(shopper, token, card)
    assert in_flight.status_code == 409
    assert in_flight.json()["error"]["code"] == "payment_in_progress"

    later = timezone.now() + services.STALE_ATTEMPT_AGE + timedelta(seconds=1)
    with time_machine.travel(later):
        shopper.sign_in_again()
        settled = complete(shopper, token, card)

    assert settled.status_code == 409
    assert settled.json()["error"]["code"] == "session_completed"
    assert deposit_charges().count() == 1
    assert PaymentPlan.objects.get().status == "active"
    assert Installment.objects.count() == 3
    assert len(events(merchant_with_key.merchant, "payment.success")) == 1


def test_the_sweeper_settles_a_lost_attempt_the_processor_never_saw(
    merchant_with_key, shopper, card, monkeypatch
):
    from checkout.services import completion

    def crash_before_charging(**kwargs):
        raise ConnectionResetError("worker died")

    monkeypatch.setattr(completion, "saved_method_charge", crash_before_charging)
    token = open_session(merchant_with_key)
    assert complete(shopper, token, card).status_code == 500
    assert services.stale_attempts_settle() == 0  # too young to judge

    later = timezone.now() + services.STALE_ATTEMPT_AGE + timedelta(seconds=1)
    with time_machine.travel(later):
        assert services.stale_attempts_settle() == 1

    attempt = DepositAttempt.objects.get()
    assert (attempt.status, attempt.failure_reason) == ("failed", "processor_error")
    assert PaymentPlan.objects.get().status == "pending"
    assert CheckoutSession.objects.get(token=token).status == "open"


def test_pending_plans_of_expired_sessions_are_cancelled(merchant_with_key, shopper):
    poor_card = add_card(shopper, CARD_POOR)
    token = open_session(merchant_with_key)
    assert complete(shopper, token, poor_card).status_code == 402
    assert services.abandoned_plans_cancel() == 0

    with time_machine.travel(timezone.now() + timedelta(minutes=31)):
        assert services.abandoned_plans_cancel() == 1

    plan = PaymentPlan.objects.get()
    assert plan.status == "cancelled" and plan.cancelled_at is not None
    assert list(plan.status_changes.values_list("from_status", "to_status")) == [
        ("pending", "cancelled")
    ]
