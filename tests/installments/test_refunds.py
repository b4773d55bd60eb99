"""Plan refunds over the API (DESIGN section 14): the allocation (unpaid
installments last due first, then money against the collections newest first),
what is refundable, `Idempotency-Key`, who may refund, the representation.

The plan of `plan_active`: 250,000 kobo, deposit 75,000 paid, installments
58,334 / 58,333 / 58,333 scheduled."""

import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import time_machine
from django.db import IntegrityError, connection, transaction
from django.db.models import F
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from installments.plans.models import Installment, PaymentPlan
from installments.refunds.errors import RefundExceedsRefundable
from installments.refunds.models import Refund, RefundPart
from installments.refunds.selectors import refund_preview
from payments.ledger.fees import platform_fee
from payments.ledger.models import LedgerTransaction
from payments.models import SandboxRefund

from ..conftest import bearer
from .conftest import (
    check_ledger,
    collect,
    event_data,
    installments_of,
    make_active_plan,
    refund,
    sandbox_refunds_settle,
)
from .refund_figures import fees, snapshot, wallet

DEPOSIT = 75_000
TOTAL = 250_000
AMOUNTS = [58_334, 58_333, 58_333]


def test_a_refund_smaller_than_the_unpaid_balance_moves_no_money_and_reduces_the_last_installments(  # noqa: E501
    plan_active,
):
    before = (wallet(plan_active), fees(), LedgerTransaction.objects.count())

    response = refund(plan_active, 70_000, "Returned the charger")

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["id"].startswith("rf_")
    assert data | {"id": None, "created_at": None} == {
        "id": None,
        "payment_plan_id": plan_active.plan.public_id,
        "livemode": True,
        "amount": 70_000,
        "amount_requested": 70_000,
        "amount_reduced": 70_000,
        "amount_returned": 0,
        "amount_pending": 0,
        "amount_failed": 0,
        "reason": "Returned the charger",
        "status": "processed",
        "parts": [],
        "created_at": None,
    }
    first, second, third = installments_of(plan_active.plan)
    assert (first.status, first.amount) == ("scheduled", 58_334)
    assert (second.status, second.amount) == ("scheduled", 58_333 - 11_667)
    assert (third.status, third.amount, third.original_amount) == (
        "cancelled",
        0,
        58_333,
    )
    assert third.next_attempt_at is None and third.cancelled_at is not None
    # No money moved: no processor refund, no posting, the same balances.
    assert (wallet(plan_active), fees(), LedgerTransaction.objects.count()) == before
    assert SandboxRefund.objects.count() == 0
    plan = PaymentPlan.objects.get(pk=plan_active.plan.pk)
    assert (plan.status, plan.amount_refunded) == ("active", 70_000)
    merchant = plan_active.owner.merchant
    assert [e["status"] for e in event_data(merchant, "refund.created")] == [
        "processed"
    ]
    assert len(event_data(merchant, "refund.processed")) == 1
    assert event_data(merchant, "payment_plan.cancelled") == []
    check_ledger()


def test_a_refund_larger_than_the_unpaid_balance_refunds_the_rest_newest_collection_first(  # noqa: E501
    plan_active,
):
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    first.refresh_from_db()
    deposit_reference = f"{plan_active.plan.public_id}_d1"
    wallet_before, fees_before = wallet(plan_active), fees()

    response = refund(plan_active, 200_000)

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    # 116,666 off the two unpaid installments, 83,334 in money: all of the
    # newest collection (installment 1), then 25,000 of the deposit.
    assert (data["amount_reduced"], data["amount_returned"]) == (116_666, 83_334)
    assert data["status"] == "pending"
    assert data["parts"] == [
        {
            "reference": f"{data['id']}_1",
            "collection_reference": first.processor_reference,
            "amount": 58_334,
            "status": "pending",
        },
        {
            "reference": f"{data['id']}_2",
            "collection_reference": deposit_reference,
            "amount": 25_000,
            "status": "pending",
        },
    ]
    assert sorted(
        SandboxRefund.objects.values_list("transaction__reference", "amount")
    ) == sorted([(first.processor_reference, 58_334), (deposit_reference, 25_000)])
    # The fee on what each collection gave back is given back with it.
    given_back = platform_fee(58_334) + platform_fee(75_000) - platform_fee(50_000)
    assert fees_before - fees() == given_back
    assert wallet_before - wallet(plan_active) == 83_334 - given_back
    plan = PaymentPlan.objects.get(pk=plan_active.plan.pk)
    assert (plan.status, plan.amount_refunded) == ("cancelled", 200_000)
    assert [row.status for row in installments_of(plan)] == [
        "paid",
        "cancelled",
        "cancelled",
    ]
    merchant = plan_active.owner.merchant
    assert event_data(merchant, "payment_plan.cancelled") == [
        {
            "resourceType": "payment_plan",
            "resourceId": plan.public_id,
            "orderReference": plan.order_reference,
            "amountPaid": DEPOSIT + 58_334,
            "amountRefunded": 200_000,
            # Both parts are still on their way.
            "amountRefundPending": 83_334,
            "amountRemaining": 0,
        }
    ]
    check_ledger()

    sandbox_refunds_settle()

    settled = Refund.objects.get(public_id=data["id"])
    assert settled.status == "processed"
    assert set(settled.parts.values_list("status", flat=True)) == {"processed"}
    assert [e["status"] for e in event_data(merchant, "refund.processed")] == [
        "processed"
    ]
    sandbox_refunds_settle()
    assert len(event_data(merchant, "refund.processed")) == 1
    check_ledger()


def test_a_refund_past_what_is_refundable_is_422_and_changes_nothing(plan_active):
    assert refund(plan_active, 100_000).status_code == 201
    before = snapshot(plan_active)

    response = refund(plan_active, 150_001)

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "refund_exceeds_refundable"
    assert "at most 150000 kobo" in response.json()["error"]["message"]
    assert snapshot(plan_active) == before
    assert refund(plan_active, 150_000).status_code == 201
    check_ledger()


def test_money_refunds_take_from_a_collection_only_what_it_has_left(plan_active):
    plan = plan_active.plan
    first = installments_of(plan)[0]
    collect(first.due_date)
    unpaid = sum(AMOUNTS[1:])

    assert refund(plan_active, unpaid + 50_000).status_code == 201
    second = refund(plan_active, 30_000).json()["data"]

    # Installment 1's collection had 8,334 left; the deposit gives the rest.
    first.refresh_from_db()
    assert [(p["collection_reference"], p["amount"]) for p in second["parts"]] == [
        (first.processor_reference, 8_334),
        (f"{plan.public_id}_d1", 21_666),
    ]
    check_ledger()


def test_a_refund_of_an_installment_reduced_before_charges_the_reduced_amount(
    plan_active,
):
    refund(plan_active, 10_000)
    plan = plan_active.plan

    for row in installments_of(plan):
        collect(row.due_date)

    amounts = LedgerTransaction.objects.filter(
        kind="collection", resource_type="installment"
    ).values_list("amount", flat=True)
    assert sorted(amounts) == sorted([58_334, 58_333, 48_333])
    plan.refresh_from_db()
    assert plan.status == "completed"
    check_ledger()


def test_a_plan_whose_last_unpaid_installment_a_refund_cancelled_completes_on_the_rest(  # noqa: E501
    plan_active,
):
    plan = plan_active.plan
    refund(plan_active, 58_333)
    first, second, _ = installments_of(plan)

    collect(first.due_date)
    plan.refresh_from_db()
    assert plan.status == "active"
    collect(second.due_date)

    plan.refresh_from_db()
    assert plan.status == "completed"
    assert event_data(plan_active.owner.merchant, "payment_plan.cancelled") == []


def test_a_refund_that_cancels_every_unpaid_installment_cancels_the_plan_once(
    plan_active,
):
    response = refund(plan_active, sum(AMOUNTS))

    assert response.json()["data"]["amount_returned"] == 0
    plan = PaymentPlan.objects.get(pk=plan_active.plan.pk)
    assert plan.status == "cancelled"
    assert {row.status for row in installments_of(plan)} == {"cancelled"}
    assert len(event_data(plan_active.owner.merchant, "payment_plan.cancelled")) == 1
    for row in installments_of(plan):
        collect(row.due_date)
    assert LedgerTransaction.objects.filter(resource_type="installment").count() == 0
    # What is left is the deposit, in money.
    assert refund(plan_active, DEPOSIT).json()["data"]["amount_returned"] == DEPOSIT
    assert refund(plan_active, 1).status_code == 422
    assert len(event_data(plan_active.owner.merchant, "payment_plan.cancelled")) == 1
    check_ledger()


def test_an_idempotency_key_replays_the_refund_for_24_hours(plan_active):
    key = uuid.uuid4()
    created = refund(plan_active, 10_000, key=key)

    again = refund(plan_active, 99_999, "Another body", key=key)

    assert (created.status_code, again.status_code) == (201, 201)
    assert again.json() == created.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Refund.objects.count() == 1
    with time_machine.travel(timezone.now() + timedelta(hours=24, seconds=1)):
        later = refund(plan_active, 10_000, key=key)
    assert later.status_code == 201
    assert later.json()["data"]["id"] != created.json()["data"]["id"]
    assert Refund.objects.count() == 2


def test_a_failed_refund_keeps_no_key_and_a_bad_key_is_a_400(plan_active):
    key = uuid.uuid4()
    assert refund(plan_active, 10**9, key=key).status_code == 422
    assert refund(plan_active, 10_000, key=key).status_code == 201

    response = refund(plan_active, 10_000, key="not-a-uuid")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_idempotency_key"


@pytest.mark.parametrize(
    "body",
    [
        {"amount": 0, "reason": "x"},
        {"amount": -5, "reason": "x"},
        {"amount": "100", "reason": "x"},
        {"amount": 100},
        {"amount": 100, "reason": " "},
        {"amount": 100, "reason": "x", "currency": "NGN"},
    ],
)
def test_a_malformed_refund_is_a_400(plan_active, body):
    response = APIClient().post(
        f"{plan_active.url}/refunds", body, format="json", **plan_active.owner.headers
    )
    assert response.status_code == 400
    assert Refund.objects.count() == 0


def test_only_the_plans_merchant_refunds_with_its_api_key(
    plan_active, other_merchant_with_key
):
    shopper = plan_active.shopper
    body = {"amount": 1_000, "reason": "x"}
    url = f"{plan_active.url}/refunds"

    assert shopper.post(url, body).status_code == 403
    assert shopper.get(url).status_code == 403
    other = APIClient()
    other.credentials(**bearer(other_merchant_with_key.api_key))
    assert other.post(url, body, format="json").status_code == 404
    assert other.get(url).status_code == 404
    assert Refund.objects.count() == 0


def test_refunds_are_listed_newest_first_and_shown_on_the_plan(plan_active):
    ids = [refund(plan_active, amount).json()["data"]["id"] for amount in (1, 2, 3)]
    client = APIClient()
    client.credentials(**plan_active.owner.headers)

    listed = client.get(f"{plan_active.url}/refunds?limit=2").json()
    plan = client.get(plan_active.url).json()["data"]

    assert listed["ok"] is True and listed["total"] == 3
    assert [item["id"] for item in listed["data"]] == ids[::-1][:2]
    assert [item["id"] for item in plan["refunds"]] == ids[::-1]
    assert plan["amount_refunded"] == 6
    last = plan["installments"][-1]
    assert (last["amount"], last["original_amount"]) == (58_333 - 6, 58_333)
    assert plan["amount_remaining"] == sum(AMOUNTS) - 6


def test_the_plan_answered_to_its_customer_shows_refunds_too(plan_active):
    refund(plan_active, 500)

    plan = plan_active.shopper.get(plan_active.url).json()["data"]

    assert [item["amount"] for item in plan["refunds"]] == [500]


def test_refund_parts_have_deterministic_references(plan_active):
    collect(installments_of(plan_active.plan)[0].due_date)
    data = refund(plan_active, 200_000).json()["data"]

    assert list(RefundPart.objects.values_list("reference", flat=True)) == [
        f"{data['id']}_1",
        f"{data['id']}_2",
    ]
    assert Installment.objects.filter(status="cancelled").count() == 2


def test_a_second_plan_of_the_merchant_is_refunded_on_its_own(plan_active):
    other = make_active_plan(
        owner=plan_active.owner, email="bo@mail.example.com", order_reference="O-2"
    )

    refund(other, 10_000)

    assert PaymentPlan.objects.get(pk=plan_active.plan.pk).amount_refunded == 0
    assert PaymentPlan.objects.get(pk=other.plan.pk).amount_refunded == 10_000


def test_the_worked_example_of_the_docs_is_what_happens(plan_active):
    """docs/payment-plans.md, "Refunds"."""
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    first.refresh_from_db()

    one = refund(plan_active, 70_000).json()["data"]
    two = refund(plan_active, 100_000).json()["data"]

    assert (one["amount_reduced"], one["status"]) == (70_000, "processed")
    assert [row.amount for row in installments_of(plan_active.plan)] == [
        58_334,
        0,
        0,
    ]
    assert (two["amount_reduced"], two["amount_returned"]) == (46_666, 53_334)
    assert [(p["collection_reference"], p["amount"]) for p in two["parts"]] == [
        (first.processor_reference, 53_334)
    ]
    assert PaymentPlan.objects.get(pk=plan_active.plan.pk).status == "cancelled"
    doc = (
        Path(__file__).resolve().parents[2] / "docs" / "payment-plans.md"
    ).read_text()
    for figure in ("58,333 → 46,666", "46,666 → 0", "then 53,334 in money"):
        assert figure in doc


def test_a_preview_shows_where_a_refund_would_go_and_changes_nothing(plan_active):
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    first.refresh_from_db()
    before = snapshot(plan_active)

    preview = refund_preview(plan_active.plan, 200_000)

    assert [(r.amount, r.cancels) for r in preview.reductions] == [
        (58_333, True),
        (58_333, True),
    ]
    assert [(p.collection_reference, p.amount) for p in preview.parts] == [
        (first.processor_reference, 58_334),
        (f"{plan_active.plan.public_id}_d1", 25_000),
    ]
    assert snapshot(plan_active) == before
    with pytest.raises(RefundExceedsRefundable):
        refund_preview(plan_active.plan, TOTAL + 1)
    data = refund(plan_active, 200_000).json()["data"]
    assert [p["amount"] for p in data["parts"]] == [p.amount for p in preview.parts]


# --- what the database allows an installment to owe ----------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "changes",
    [
        {"amount": 0},  # owes nothing but is not cancelled
        {"amount": -1},
        {"amount_above_original": 1},
    ],
    ids=["zero-not-cancelled", "negative", "above-original"],
)
def test_the_database_refuses_an_installment_owing_what_it_cannot(changes):
    installment = make_active_plan().plan.installments.order_by("sequence").first()
    rows = Installment.objects.filter(pk=installment.pk)
    update = (
        {"amount": F("original_amount") + changes["amount_above_original"]}
        if "amount_above_original" in changes
        else changes
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        rows.update(**update)


@pytest.mark.django_db
def test_the_database_lets_a_cancelled_installment_owe_nothing():
    installment = make_active_plan().plan.installments.order_by("sequence").first()
    Installment.objects.filter(pk=installment.pk).update(amount=0, status="cancelled")
    installment.refresh_from_db()
    assert (installment.amount, installment.status) == (0, "cancelled")


@pytest.mark.django_db
def test_the_plan_list_reads_refunds_in_a_fixed_number_of_queries():
    """Each plan carries its refunds and their parts: read with the plans, not
    once per plan (no N+1)."""
    first = make_active_plan()
    owner = first.owner

    def refund(setup):
        response = APIClient().post(
            f"{setup.url}/refunds",
            {"amount": 1_000, "reason": "Returned a cable"},
            format="json",
            **owner.headers,
        )
        assert response.status_code == 201, response.content

    def list_queries() -> tuple[int, int]:
        with CaptureQueriesContext(connection) as queries:
            response = APIClient().get("/api/v1/payment-plans", **owner.headers)
        assert response.status_code == 200
        return len(queries), response.json()["total"]

    refund(first)
    one, total = list_queries()
    assert total == 1
    for n in range(3):
        more = make_active_plan(
            owner=owner, email=f"more{n}@mail.example.com", order_reference=f"o-{n}"
        )
        refund(more)
    four, total = list_queries()

    assert total == 4
    assert four == one
