"""The sandbox clock: `POST /api/v1/sandbox/payment-plans/<plan_id>/advance`
`{to}` runs everything that would happen to one plan up to the end of that
Lagos date, day by day (reminders, collections, retries on their days, the
wait for a payment method, default, receipts), through the engine's own code.

Today is frozen with time-machine (25 March 2026): the sandbox's card
`4084080000000011` then expires at the end of March, before the first due
date; the clock, not the real date, decides that its charge is too late."""

import json
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta
from pathlib import Path

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from installments.notifications.models import Message
from installments.plans.models import Installment, PaymentPlan
from payments.gateway.pages import TEST_CARDS
from payments.gateway.processors import get_processor
from payments.gateway.processors.sandbox.values import (
    CARD_EXPIRES_THIS_MONTH,
    CARD_FAILS_TWICE,
    CARDS,
)
from payments.models import PaymentMethod, SandboxTransaction
from webhooks.models import Event

from ..checkout.conftest import CARD_OK, add_card, complete, open_session, register
from ..conftest import bearer, make_merchant_with_key, merchant_jwt
from ..dashboards import sign_in
from ..webhooks.conftest import SECRET
from .conftest import PlanSetup, charges_for, check_ledger, installments_of

pytestmark = pytest.mark.django_db(transaction=True)

TODAY = date(2026, 3, 25)
REMINDER = timedelta(days=3)


@contextmanager
def today(hour: int = 12):
    moment = timezone.make_aware(datetime.combine(TODAY, time(hour)))
    with time_machine.travel(moment, tick=True):
        yield


def bought_with(
    card: str, *, count: int = 3, owner=None, email=None, order="ORD-1001"
) -> PlanSetup:
    """Today, a shopper saves `card` and buys on `count` monthly installments
    with it (from `owner`, a new merchant otherwise)."""
    owner = owner or make_merchant_with_key()
    email = email or "ada@mail.example.com"
    shopper = register(email)
    response = complete(
        shopper,
        open_session(owner, order_reference=order, customer_email=email),
        add_card(shopper, card),
        installment_count=count,
    )
    assert response.status_code == 201, response.content
    plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
    return PlanSetup(owner=owner, shopper=shopper, plan=plan)


@pytest.fixture
def subscribed(receiver, settings):
    """A merchant whose webhooks go to the receiver, sent one at a time: they
    arrive in the order they happened (several delivery threads may overtake
    one another, docs/webhooks.md)."""
    settings.WEBHOOK_DELIVERY_THREADS = 1
    return make_merchant_with_key(webhook_url=receiver.url, webhook_secret=SECRET)


def advance(setup: PlanSetup, to, headers=None, plan_id=None):
    return APIClient().post(
        f"/api/v1/sandbox/payment-plans/{plan_id or setup.plan.public_id}/advance",
        {"to": to.isoformat() if isinstance(to, date) else to},
        format="json",
        **(setup.owner.headers if headers is None else headers),
    )


def due_dates(setup: PlanSetup) -> list[date]:
    return [i.due_date for i in installments_of(setup.plan)]


def received(receiver) -> list[tuple[str, dict]]:
    return [
        (body["eventType"], body["data"])
        for body in (json.loads(item.body) for item in receiver.received)
    ]


def snapshot(setup: PlanSetup) -> tuple:
    """What an advance could change: charges, events, messages, installments."""
    return (
        SandboxTransaction.objects.count(),
        Event.objects.count(),
        Message.objects.count(),
        list(
            Installment.objects.filter(plan=setup.plan)
            .order_by("sequence")
            .values_list("status", "attempts", "next_attempt_at")
        ),
    )


# --- whole lives ----------------------------------------------------------------


def test_a_card_that_fails_twice_is_retried_on_its_days_until_the_plan_completes(
    subscribed, receiver
):
    with today():
        setup = bought_with(CARD_FAILS_TWICE, owner=subscribed)
        dues = due_dates(setup)
        before = len(receiver.received)

        response = advance(setup, dues[-1] + timedelta(days=3))

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["data"]["status"] == "completed"
    assert [(i["status"], i["attempts"]) for i in body["data"]["installments"]] == [
        ("paid", 3)
    ] * 3
    # Attempt 1 on the due date, 2 the day after, 3 (paid) three days after.
    days = {day["date"]: day for day in body["advance"]["days"]}
    expected = {TODAY} | {
        day
        for due in dues
        for day in (due - REMINDER, due, due + timedelta(1), due + timedelta(3))
    }
    assert list(days) == [day.isoformat() for day in sorted(expected)]
    for due in dues:
        assert days[(due - REMINDER).isoformat()]["reminders_sent"] == 1
        assert [
            (days[d.isoformat()]["failed"], days[d.isoformat()]["paid"])
            for d in (due, due + timedelta(1), due + timedelta(3))
        ] == [(1, 0), (1, 0), (0, 1)]
        assert days[(due + timedelta(3)).isoformat()]["receipts_sent"] == 1
    assert body["advance"]["to"] == (dues[-1] + timedelta(days=3)).isoformat()
    for installment in installments_of(setup.plan):
        assert [(c.reference, c.status) for c in charges_for(installment)] == [
            (f"{installment.public_id}_a1", "failed"),
            (f"{installment.public_id}_a2", "failed"),
            (f"{installment.public_id}_a3", "success"),
        ]
    events = received(receiver)[before:]
    assert [kind for kind, _ in events] == [
        "payment.failed",
        "payment.failed",
        "payment_plan.installment_paid",
        "installment.paid",
    ] * 3 + ["payment_plan.completed"]
    assert {
        (data["reason"], data["retryable"])
        for kind, data in events
        if kind == "payment.failed"
    } == {("insufficient_funds", True)}
    assert "clean" in check_ledger()


def test_an_expired_card_waits_for_a_new_method_then_the_plan_defaults(
    subscribed, receiver
):
    with today():
        setup = bought_with(CARD_EXPIRES_THIS_MONTH, owner=subscribed)
        first = installments_of(setup.plan)[0]
        before = len(receiver.received)

        waiting = advance(setup, first.due_date)
        page = sign_in(Client(), setup.owner.merchant).get(
            f"/dashboard/plans/{setup.plan.public_id}/"
        )
        ended = advance(setup, due_dates(setup)[-1])

    assert waiting.status_code == 200, waiting.content
    plan = waiting.json()["data"]
    assert (plan["status"], plan["installments"][0]["status"]) == (
        "active",
        "action_required",
    )
    [day] = [d for d in waiting.json()["advance"]["days"] if d["attempts"]]
    assert (day["date"], day["action_required"], day["notices_sent"]) == (
        first.due_date.isoformat(),
        1,
        1,
    )
    assert "badge-action_required" in page.content.decode()
    assert PaymentMethod.objects.get(customer__public_id=setup.shopper.customer_id)
    assert (
        PaymentMethod.objects.get(customer__public_id=setup.shopper.customer_id).status
        == "expired"
    )
    notice = Message.objects.get(kind="action_required", channel="email")
    assert "/account/" in notice.body

    assert ended.status_code == 200, ended.content
    plan = ended.json()["data"]
    assert plan["status"] == "defaulted"
    assert [i["status"] for i in plan["installments"]] == ["defaulted"] + [
        "scheduled"
    ] * 2
    [day] = [d for d in ended.json()["advance"]["days"] if d["attempts"]]
    assert (day["date"], day["defaulted"]) == (
        (first.due_date + timedelta(days=7)).isoformat(),
        1,
    )
    assert [
        (kind, data.get("reason"), data.get("retryable"))
        for kind, data in received(receiver)[before:]
    ] == [
        ("payment.failed", "card_expired", False),
        ("payment.failed", "no_payment_method", False),
        ("payment_plan.defaulted", None, None),
    ]
    assert [c.reference for c in charges_for(first)] == [f"{first.public_id}_a1"]
    assert "clean" in check_ledger()


def test_a_card_added_during_the_wait_is_charged_at_the_next_advance():
    with today():
        setup = bought_with(CARD_EXPIRES_THIS_MONTH)
        first = installments_of(setup.plan)[0]
        advance(setup, first.due_date)
        add_card(setup.shopper, CARD_OK)

        response = advance(setup, first.due_date)

    assert response.status_code == 200, response.content
    assert [
        (i["status"], i["attempts"]) for i in response.json()["data"]["installments"]
    ] == [
        ("paid", 2),
        ("scheduled", 0),
        ("scheduled", 0),
    ]
    # Today finds it not yet due (a method added during a wait is charged from
    # the due date on); the due date's day charges it.
    days = response.json()["advance"]["days"]
    assert [(d["date"], d["paid"]) for d in days] == [
        (TODAY.isoformat(), 0),
        (first.due_date.isoformat(), 1),
    ]
    assert "clean" in check_ledger()


# --- advancing again, and only that plan ---------------------------------------


def test_advancing_again_to_the_same_or_an_earlier_date_changes_nothing():
    with today():
        setup = bought_with(CARD_FAILS_TWICE)
        due = due_dates(setup)[0]
        assert advance(setup, due + timedelta(days=1)).status_code == 200
        after_first = snapshot(setup)

        again = [advance(setup, to) for to in (due + timedelta(days=1), due, TODAY)]
        unchanged = snapshot(setup)
        further = advance(setup, due + timedelta(days=3))

    assert [response.status_code for response in again] == [200] * 3
    assert unchanged == after_first
    for response in again:
        assert all(
            not any(value for key, value in day.items() if key != "date")
            for day in response.json()["advance"]["days"]
        )
    assert after_first[3][0][:2] == ("failed", 2)
    assert further.json()["data"]["installments"][0]["attempts"] == 3
    assert further.json()["data"]["installments"][0]["status"] == "paid"


def test_only_the_named_plan_moves():
    with today():
        owner = make_merchant_with_key()
        mine = bought_with(CARD_OK, owner=owner)
        other = bought_with(
            CARD_OK, owner=owner, email="bola@mail.example.com", order="ORD-1002"
        )

        response = advance(mine, due_dates(mine)[-1])

    assert response.json()["data"]["status"] == "completed"
    assert [(i.status, i.attempts) for i in installments_of(other.plan)] == [
        ("scheduled", 0)
    ] * 3
    assert not Message.objects.filter(
        customer__public_id=other.shopper.customer_id, kind="reminder"
    ).exists()
    assert not charges_for(installments_of(other.plan)[0]).exists()


# --- bounds and refusals ---------------------------------------------------------


def test_to_must_be_from_today_to_60_days_after_the_last_due_date():
    with today():
        setup = bought_with(CARD_OK)
        last = due_dates(setup)[-1]
        before = snapshot(setup)

        yesterday = advance(setup, TODAY - timedelta(days=1))
        too_far = advance(setup, last + timedelta(days=61))
        refused = snapshot(setup)
        furthest = advance(setup, last + timedelta(days=60))

    assert yesterday.status_code == 422
    assert yesterday.json() == {
        "ok": False,
        "error": {
            "code": "advance_date_out_of_range",
            "message": "`to` (2026-03-24) is before today (2026-03-25, Lagos time): "
            "the clock only moves forward.",
        },
    }
    assert too_far.status_code == 422
    limit = (last + timedelta(days=60)).isoformat()
    assert too_far.json()["error"]["message"] == (
        f"`to` ({(last + timedelta(days=61)).isoformat()}) is too far: this plan "
        f"can be advanced up to {limit}, 60 days after its last due date."
    )
    assert refused == before
    assert furthest.status_code == 200
    assert furthest.json()["data"]["status"] == "completed"


@pytest.mark.parametrize(
    "value", ["2026-02-30", "tomorrow", "25/04/2026", 20260425, None, ""]
)
def test_a_to_that_is_not_a_date_is_a_400(value):
    with today():
        setup = bought_with(CARD_OK)
        before = snapshot(setup)
        response = advance(setup, value)

    assert response.status_code == 400
    assert "to" in response.json()["errors"]
    assert snapshot(setup) == before


def test_a_body_without_to_or_with_another_field_is_a_400():
    with today():
        setup = bought_with(CARD_OK)
        url = f"/api/v1/sandbox/payment-plans/{setup.plan.public_id}/advance"
        missing = APIClient().post(url, {}, format="json", **setup.owner.headers)
        extra = APIClient().post(
            url,
            {"to": TODAY.isoformat(), "dry_run": True},
            format="json",
            **setup.owner.headers,
        )

    assert (missing.status_code, extra.status_code) == (400, 400)
    assert "to" in missing.json()["errors"]


def test_another_merchants_plan_and_other_credentials_are_refused():
    with today():
        setup = bought_with(CARD_OK)
        stranger = make_merchant_with_key()
        to = due_dates(setup)[0]
        answers = {
            "stranger": advance(setup, to, headers=stranger.headers),
            "none": advance(setup, to, headers={}),
            "merchant_jwt": advance(
                setup, to, headers=bearer(merchant_jwt(setup.owner.merchant))
            ),
            "customer_jwt": advance(setup, to, headers=bearer(setup.shopper.access)),
            "unknown": advance(setup, to, plan_id="plan_doesnotexist000000000"),
        }

    assert {name: answer.status_code for name, answer in answers.items()} == {
        "stranger": 404,
        "none": 401,
        "merchant_jwt": 403,
        "customer_jwt": 403,
        "unknown": 404,
    }
    assert answers["stranger"].json()["error"]["code"] == "not_found"
    assert not charges_for(installments_of(setup.plan)[0]).exists()


def test_the_clock_refuses_a_live_key_on_a_live_processor(settings):
    with today():
        setup = bought_with(CARD_OK)
        settings.PROCESSOR = "paystack"
        response = advance(setup, due_dates(setup)[0])

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "live_mode_forbidden"
    assert not charges_for(installments_of(setup.plan)[0]).exists()


def test_a_plan_whose_deposit_is_not_paid_has_nothing_to_run():
    with today():
        setup = bought_with(CARD_OK)
        PaymentPlan.objects.filter(pk=setup.plan.pk).update(status="pending")
        response = advance(setup, TODAY)

    assert response.status_code == 409
    assert response.json()["error"] == {
        "code": "plan_not_collectable",
        "message": "This plan is pending: its deposit is not paid, so it has no "
        "schedule to run yet.",
    }


def test_a_finished_plan_answers_with_nothing_done():
    with today():
        setup = bought_with(CARD_OK)
        advance(setup, due_dates(setup)[-1])
        before = snapshot(setup)
        response = advance(setup, due_dates(setup)[-1] + timedelta(days=30))

    assert response.status_code == 200
    assert response.json()["data"]["status"] == "completed"
    assert response.json()["advance"]["days"] == []
    assert snapshot(setup) == before


# --- the sandbox's card that fails twice -----------------------------------------


@pytest.mark.parametrize(
    ("reference", "status"),
    [
        ("inst_3Vb8nM1qW4eR7tY0uI2oP5_a1", "failed"),
        ("inst_3Vb8nM1qW4eR7tY0uI2oP5_a1m2", "failed"),
        ("inst_3Vb8nM1qW4eR7tY0uI2oP5_a2", "failed"),
        ("inst_3Vb8nM1qW4eR7tY0uI2oP5_a3", "success"),
        ("inst_3Vb8nM1qW4eR7tY0uI2oP5_a4m2", "success"),
        ("plan_7Rk2pQ9wXs1LmB4tZc8nV0_d1", "success"),
        ("inst_3Vb8nM1qW4eR7tY0uI2oP5_p1", "success"),
    ],
)
def test_the_card_that_fails_twice_reads_the_attempt_from_the_reference(
    reference, status
):
    with today():
        setup = bought_with(CARD_FAILS_TWICE)
    card = PaymentMethod.objects.get(customer__public_id=setup.shopper.customer_id)

    result = get_processor().charge_authorization(
        email="ada@mail.example.com",
        amount=10_000,
        authorization_code=card.authorization_code,
        reference=reference,
    )

    assert result.status == status
    assert result.failure_reason == ("insufficient_funds" if status == "failed" else "")


def test_every_sandbox_card_is_documented_and_offered_on_the_card_page():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "sandbox.md").read_text()

    for number in CARDS:
        assert f"| card `{number}` |" in doc
    assert {number for number, _ in TEST_CARDS} == set(CARDS)


@pytest.mark.parametrize("written", ["2026-4-25", "2026-04-5", "20260425"])
def test_a_to_not_written_yyyy_mm_dd_is_a_readable_400(written):
    with today():
        setup = bought_with(CARD_OK)
        before = snapshot(setup)
        response = advance(setup, written)

    assert response.status_code == 400, response.content
    assert response.json()["errors"] == {
        "to": ["Enter a date written YYYY-MM-DD, for example 2027-01-05."]
    }
    assert response.json()["detail"].startswith("Invalid input. to: Enter a date")
    assert snapshot(setup) == before
