"""`GET /api/v1/payment-plans/<plan_id>` and `GET /api/v1/payment-plans`
(DESIGN section 11): who may read which plan."""

import pytest

from installments.plans.models import Installment

from ..checkout.conftest import CARD_POOR, add_card, complete, open_session, register
from ..conftest import bearer, customer_jwt, make_merchant_with_key, merchant_jwt
from .conftest import make_active_plan

LIST_URL = "/api/v1/payment-plans"


def test_the_plans_merchant_reads_it_with_its_api_key(api, plan_active):
    response = api.get(plan_active.url, **plan_active.owner.headers)

    assert response.status_code == 200
    data = response.json()["data"]
    assert data["id"] == plan_active.plan.public_id
    assert data["merchant_id"] == plan_active.owner.merchant.public_id
    assert len(data["installments"]) == 3


def test_the_plans_customer_reads_it_with_their_jwt(plan_active):
    response = plan_active.shopper.get(plan_active.url)

    assert response.status_code == 200
    assert response.json()["data"]["customer_id"] == plan_active.shopper.customer_id


def test_another_merchants_api_key_cannot_read_the_plan(
    api, plan_active, other_merchant_with_key
):
    response = api.get(plan_active.url, **other_merchant_with_key.headers)

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_another_customer_cannot_read_the_plan(plan_active):
    mallory = register("mallory@mail.example.com")

    response = mallory.get(plan_active.url)

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_merchant_jwt_or_no_credential_cannot_read_plans(api, plan_active):
    merchant = plan_active.owner.merchant

    assert api.get(plan_active.url).status_code == 401
    assert api.get(plan_active.url, **bearer(merchant_jwt(merchant))).status_code == 403


@pytest.mark.parametrize("plan_id", ["plan_missing", "inst_abc", "plan_%00", "x" * 300])
def test_unknown_or_malformed_plan_ids_are_404(api, plan_active, plan_id):
    response = api.get(f"{LIST_URL}/{plan_id}", **plan_active.owner.headers)

    assert response.status_code == 404


def test_amount_paid_counts_the_deposit_and_every_paid_installment(api, plan_active):
    first = plan_active.plan.installments.first()
    first.transition_to(Installment.Status.PROCESSING)
    first.transition_to(Installment.Status.PAID)

    data = api.get(plan_active.url, **plan_active.owner.headers).json()["data"]

    paid = data["deposit_amount"] + data["installments"][0]["amount"]
    assert data["amount_paid"] == paid
    assert data["amount_remaining"] == data["total_amount"] - paid
    assert data["installments"][0]["status"] == "paid"
    assert data["installments"][0]["paid_at"].endswith("Z")


def test_the_list_finds_the_merchants_plan_by_order_reference(api, plan_active):
    owner = plan_active.owner
    make_active_plan(owner, email="bola@mail.example.com", order_reference="ORD-2")

    response = api.get(LIST_URL, {"order_reference": "ORD-1001"}, **owner.headers)

    assert response.status_code == 200
    body = response.json()
    assert body["total"] == 1
    assert [plan["id"] for plan in body["data"]] == [plan_active.plan.public_id]
    everything = api.get(LIST_URL, **owner.headers).json()
    assert everything["total"] == 2
    page = api.get(LIST_URL, {"limit": 1, "offset": 1}, **owner.headers).json()
    assert page["total"] == 2 and len(page["data"]) == 1


def test_the_list_never_shows_another_merchants_plans(
    api, plan_active, other_merchant_with_key
):
    response = api.get(
        LIST_URL, {"order_reference": "ORD-1001"}, **other_merchant_with_key.headers
    )

    assert response.json() == {"ok": True, "data": [], "total": 0}


def test_the_list_needs_an_api_key(api, plan_active):
    customer = plan_active.shopper.customer

    assert api.get(LIST_URL).status_code == 401
    assert api.get(LIST_URL, **bearer(customer_jwt(customer))).status_code == 403


def test_the_list_refuses_a_bad_query(api, plan_active):
    response = api.get(
        LIST_URL, {"order_reference": "x" * 101}, **plan_active.owner.headers
    )

    assert response.status_code == 400


def test_a_merchant_without_api_access_cannot_read_plans(api, plan_active):
    owner = plan_active.owner
    owner.merchant.api_access_enabled = False
    owner.merchant.save()

    response = api.get(plan_active.url, **owner.headers)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "api_access_disabled"


def test_a_pending_plan_reads_as_nothing_paid_yet(api, db):
    owner = make_merchant_with_key()
    shopper = register("poor@mail.example.com")
    card = add_card(shopper, CARD_POOR)
    complete(shopper, open_session(owner), card)

    [plan] = api.get(LIST_URL, **owner.headers).json()["data"]

    assert plan["status"] == "pending"
    assert plan["amount_paid"] == 0
    assert plan["amount_remaining"] == plan["total_amount"]
    assert plan["installments"] == []
