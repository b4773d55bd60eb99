"""The sandbox's side of disputes (DESIGN section 19): a collection made with
the disputed card is disputed a minute later by the every-minute pass, and
`POST /api/v1/sandbox/disputes/{id}/resolve` decides one."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from config.schedules import declared
from installments.disputes.models import Dispute
from installments.plans.models import PaymentPlan
from payments.gateway import tasks as gateway_tasks
from payments.gateway.models import ProcessorEvent, SandboxDispute
from payments.gateway.processors.sandbox.values import CARD_DISPUTED
from payments.ledger.fees import platform_fee
from payments.ledger.models import DISPUTES_HELD
from payments.ledger.selectors import account_balance, wallet_available_balance

from ..checkout.conftest import add_card, complete, open_session, register
from ..conftest import bearer, make_merchant_with_key, merchant_jwt
from .conftest import PlanSetup, agreement_emails_set_aside, check_ledger, event_data
from .disputes import DISPUTE_FIELDS, deposit_reference, dispute_open

pytestmark = pytest.mark.django_db(transaction=True)


def disputed_plan(email="ada@mail.example.com") -> PlanSetup:
    """A plan whose customer pays with the sandbox's disputed card: its
    deposit is the charge the customer's bank disputes."""
    owner = make_merchant_with_key()
    shopper = register(email)
    card = add_card(shopper, CARD_DISPUTED)
    response = complete(shopper, open_session(owner), card)
    assert response.status_code == 201, response.content
    plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
    agreement_emails_set_aside()
    return PlanSetup(owner=owner, shopper=shopper, plan=plan)


def a_minute_later():
    return time_machine.travel(timezone.now() + timedelta(minutes=1, seconds=1))


def run_pass() -> int:
    return gateway_tasks.sandbox_disputes_run()


def opened(setup: PlanSetup) -> Dispute:
    with a_minute_later():
        assert run_pass() == 1
    return Dispute.objects.get(plan=setup.plan)


def resolve(dispute_id: str, outcome, headers: dict):
    return APIClient().post(
        f"/api/v1/sandbox/disputes/{dispute_id}/resolve",
        {"outcome": outcome},
        format="json",
        **headers,
    )


@pytest.fixture
def setup(db) -> PlanSetup:
    return disputed_plan()


def test_the_deposit_is_disputed_a_minute_later_once(setup):
    merchant = setup.owner.merchant
    before = wallet_available_balance(merchant)
    assert run_pass() == 0
    assert not Dispute.objects.exists()

    dispute = opened(setup)

    assert dispute.collection_reference == deposit_reference(setup.plan)
    assert dispute.amount == dispute.amount_held == setup.plan.deposit_amount
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE
    assert wallet_available_balance(merchant) == before - dispute.amount
    assert [d["resourceId"] for d in event_data(merchant, "dispute.created")] == [
        dispute.public_id
    ]
    # The card's verification charge (refunded at once) is not disputed.
    assert SandboxDispute.objects.get().created_announced_at is not None
    with a_minute_later():
        assert run_pass() == 0
    assert Dispute.objects.count() == 1
    assert len(event_data(merchant, "dispute.created")) == 1
    check_ledger()


def test_lost_charges_back_by_the_fee_rule(setup):
    merchant = setup.owner.merchant
    before = wallet_available_balance(merchant)
    dispute = opened(setup)

    response = resolve(dispute.public_id, "lost", setup.owner.headers)

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert set(data) == DISPUTE_FIELDS
    assert data["id"] == dispute.public_id
    assert data["payment_plan_id"] == setup.plan.public_id
    assert data["installment_id"] is None
    assert data["status"] == "lost"
    assert data["resolved_at"].endswith("Z")
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.LOST
    # The merchant bears what it netted; the platform gives back its fee.
    assert wallet_available_balance(merchant) == (
        before - dispute.amount + platform_fee(dispute.amount)
    )
    assert account_balance(DISPUTES_HELD) == 0
    setup.plan.refresh_from_db()
    assert setup.plan.status == PaymentPlan.Status.DISPUTED
    assert [d["status"] for d in event_data(merchant, "dispute.lost")] == ["lost"]
    assert SandboxDispute.objects.get().resolved_announced_at is not None
    # The pass has nothing left to announce.
    assert run_pass() == 0
    assert len(event_data(merchant, "dispute.lost")) == 1
    check_ledger()


def test_won_returns_the_money(setup):
    merchant = setup.owner.merchant
    before = wallet_available_balance(merchant)
    dispute = opened(setup)

    response = resolve(dispute.public_id, "won", setup.owner.headers)

    assert response.status_code == 200, response.content
    assert response.json()["data"]["status"] == "won"
    assert wallet_available_balance(merchant) == before
    assert account_balance(DISPUTES_HELD) == 0
    setup.plan.refresh_from_db()
    assert setup.plan.status == PaymentPlan.Status.ACTIVE
    assert setup.plan.open_disputes == 0
    assert len(event_data(merchant, "dispute.won")) == 1
    check_ledger()


def test_a_decided_dispute_is_not_decided_again(setup):
    dispute = opened(setup)
    assert resolve(dispute.public_id, "won", setup.owner.headers).status_code == 200

    response = resolve(dispute.public_id, "lost", setup.owner.headers)

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "dispute_not_open"
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.WON
    check_ledger()


def test_an_outcome_other_than_won_or_lost_is_refused_readably(setup):
    dispute = opened(setup)
    for outcome in ("maybe", "", 1, True, None):
        response = resolve(dispute.public_id, outcome, setup.owner.headers)
        assert response.status_code == 400, (outcome, response.content)
        assert "outcome" in response.json()["errors"], response.content
    response = resolve(dispute.public_id, "maybe", setup.owner.headers)
    assert response.json()["errors"]["outcome"] == ['The outcome is "won" or "lost".']
    missing = APIClient().post(
        f"/api/v1/sandbox/disputes/{dispute.public_id}/resolve",
        {},
        format="json",
        **setup.owner.headers,
    )
    assert missing.status_code == 400
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE


def test_only_the_disputes_merchant_with_its_api_key(setup):
    dispute = opened(setup)
    stranger = make_merchant_with_key()

    assert resolve(dispute.public_id, "lost", stranger.headers).status_code == 404
    assert (
        resolve("dp_doesnotexist0000000000", "lost", setup.owner.headers).status_code
        == 404
    )
    assert resolve("plan_notadispute", "lost", setup.owner.headers).status_code == 404
    assert resolve(dispute.public_id, "lost", {}).status_code == 401
    merchant = setup.owner.merchant
    jwt = bearer(merchant_jwt(merchant))
    assert resolve(dispute.public_id, "lost", jwt).status_code == 403
    shopper = bearer(setup.shopper.access)
    assert resolve(dispute.public_id, "lost", shopper).status_code == 403
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE


def test_the_resolve_call_refuses_a_live_key_on_a_live_processor(setup, settings):
    dispute = opened(setup)
    settings.PROCESSOR = "paystack"

    refused = resolve(dispute.public_id, "lost", setup.owner.headers)
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "live_mode_forbidden"
    assert resolve(dispute.public_id, "lost", {}).status_code == 401
    assert run_pass() == 0
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE


def test_an_unanswered_dispute_past_its_deadline_is_lost_by_the_pass(setup):
    merchant = setup.owner.merchant
    dispute = opened(setup)

    with time_machine.travel(dispute.due_at + timedelta(minutes=1)):
        response = resolve(dispute.public_id, "won", setup.owner.headers)
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "dispute_deadline_passed"
        assert run_pass() == 1
        assert run_pass() == 0

    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.LOST
    assert len(event_data(merchant, "dispute.lost")) == 1
    check_ledger()


def test_an_announcement_that_fails_is_sent_by_the_next_pass(setup, monkeypatch):
    from payments.gateway.services import sandbox_disputes

    real = sandbox_disputes.processor_event_handle

    def down(**kwargs):
        raise ConnectionError("the database blinked")

    monkeypatch.setattr(sandbox_disputes, "processor_event_handle", down)
    with a_minute_later():
        assert run_pass() == 0
    assert not Dispute.objects.exists()
    assert SandboxDispute.objects.get().created_announced_at is None

    monkeypatch.setattr(sandbox_disputes, "processor_event_handle", real)
    assert run_pass() == 1
    assert Dispute.objects.count() == 1
    assert ProcessorEvent.objects.filter(kind="charge.dispute.create").count() == 1


def test_a_dispute_opened_otherwise_is_decided_by_the_call_too(db):
    """A dispute of a card charge the sandbox opened by its own call (not the
    disputed card's) takes the resolve call just the same."""
    from .conftest import make_active_plan

    setup = make_active_plan()
    dispute = dispute_open(deposit_reference(setup.plan))

    response = resolve(dispute.public_id, "lost", setup.owner.headers)

    assert response.status_code == 200, response.content
    assert response.json()["data"]["status"] == "lost"
    check_ledger()


def test_the_pass_is_a_schedule_every_minute():
    spec = {spec.name: spec for spec in declared()}["payments-sandbox-disputes"]

    assert spec.func == "payments.gateway.tasks.sandbox_disputes_run"
    assert (spec.schedule_type, spec.minutes) == ("I", 1)
