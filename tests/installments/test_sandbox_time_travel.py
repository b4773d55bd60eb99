"""Sandbox time travel: `POST /api/v1/sandbox/payment-plans/<plan_id>/collect-next`
collects the plan's next installment now, for merchants testing their
integration (sandbox processor only)."""

import json

import pytest
from rest_framework.test import APIClient

from installments.plans.models import PaymentPlan

from ..checkout.conftest import CARD_POOR
from ..conftest import bearer, make_merchant_with_key, merchant_jwt
from ..webhooks.conftest import SECRET
from .conftest import charges_for, check_ledger, installments_of, make_active_plan
from .failed_collections import only_card

pytestmark = pytest.mark.django_db(transaction=True)


def collect_next(setup, headers=None, plan_id=None):
    return APIClient().post(
        f"/api/v1/sandbox/payment-plans/{plan_id or setup.plan.public_id}/collect-next",
        **(setup.owner.headers if headers is None else headers),
    )


def event_types(receiver) -> list[str]:
    return [json.loads(item.body)["eventType"] for item in receiver.received]


@pytest.fixture
def subscribed(receiver):
    def make(**fields):
        owner = make_merchant_with_key(
            webhook_url=receiver.url, webhook_secret=SECRET, **fields
        )
        return make_active_plan(owner)

    return make


def test_collect_next_collects_one_installment_and_answers_the_plan(
    subscribed, receiver
):
    setup = subscribed()
    first = installments_of(setup.plan)[0]
    before = len(receiver.received)

    response = collect_next(setup)

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["ok"] is True
    plan = body["data"]
    assert plan["id"] == setup.plan.public_id
    assert plan["status"] == "active"
    assert [i["status"] for i in plan["installments"]] == [
        "paid",
        "scheduled",
        "scheduled",
    ]
    assert plan["installments"][0]["attempts"] == 1
    assert plan["amount_paid"] == setup.plan.deposit_amount + first.amount
    assert sorted(event_types(receiver)[before:]) == [
        "installment.paid",
        "payment_plan.installment_paid",
    ]
    paid = json.loads(receiver.received[-1].body)["data"]  # either name
    assert (paid["resourceId"], paid["processorReference"]) == (
        first.public_id,
        f"{first.public_id}_a1",
    )


def test_collect_next_runs_a_plan_to_completion_then_answers_409(subscribed, receiver):
    setup = subscribed(release_rule="after_installments:2")

    for _ in range(3):
        assert collect_next(setup).status_code == 200

    plan = PaymentPlan.objects.get(pk=setup.plan.pk)
    assert plan.status == "completed"
    assert event_types(receiver).count("goods.release") == 1
    assert event_types(receiver).count("installment.paid") == 3
    response = collect_next(setup)
    assert response.status_code == 409
    assert response.json() == {
        "ok": False,
        "error": {
            "code": "plan_not_collectable",
            "message": "This plan is completed: only an active plan has installments "
            "to collect.",
        },
    }
    assert "clean" in check_ledger()


def test_goods_release_on_completion_fires_with_the_last_installment(
    subscribed, receiver
):
    setup = subscribed(release_rule="on_completion")

    collect_next(setup)
    collect_next(setup)
    assert "goods.release" not in event_types(receiver)
    collect_next(setup)

    # Delivered concurrently: the last call's four events, in any order.
    assert sorted(event_types(receiver)[-4:]) == [
        "goods.release",
        "installment.paid",
        "payment_plan.completed",
        "payment_plan.installment_paid",
    ]


def test_a_failing_card_shows_payment_failed_then_defaults(subscribed, receiver):
    setup = subscribed()
    only_card(setup, CARD_POOR)
    first = installments_of(setup.plan)[0]

    for attempt in range(1, 5):
        response = collect_next(setup)
        assert response.status_code == 200
        assert response.json()["data"]["installments"][0]["attempts"] == attempt

    data = response.json()["data"]
    assert data["status"] == "defaulted"
    assert data["installments"][0]["status"] == "defaulted"
    failed = [
        json.loads(item.body)["data"]
        for item in receiver.received
        if json.loads(item.body)["eventType"] == "payment.failed"
    ]
    assert [f["reason"] for f in failed] == ["insufficient_funds"] * 4
    assert charges_for(first).count() == 4
    assert collect_next(setup).status_code == 409


def test_another_merchants_key_cannot_collect(subscribed):
    setup = subscribed()
    stranger = make_merchant_with_key()

    response = collect_next(setup, headers=stranger.headers)

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert all(i.status == "scheduled" for i in installments_of(setup.plan))


def test_credentials_other_than_the_api_key_are_refused(subscribed):
    setup = subscribed()

    assert collect_next(setup, headers={}).status_code == 401
    merchant = setup.owner.merchant
    assert collect_next(setup, headers=bearer(merchant_jwt(merchant))).status_code == (
        403
    )
    assert collect_next(setup, headers=bearer(setup.shopper.access)).status_code == 403
    assert collect_next(setup, plan_id="plan_doesnotexist000000000").status_code == 404


def test_time_travel_refuses_a_live_key_on_a_live_processor(subscribed, settings):
    setup = subscribed()
    settings.PROCESSOR = "paystack"

    response = collect_next(setup)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "live_mode_forbidden"
    assert collect_next(setup, headers={}).status_code == 401
    assert all(i.status == "scheduled" for i in installments_of(setup.plan))


def test_a_trailing_slash_is_served_too(subscribed):
    setup = subscribed()

    response = APIClient().post(
        f"/api/v1/sandbox/payment-plans/{setup.plan.public_id}/collect-next/",
        **setup.owner.headers,
    )

    assert response.status_code == 200
