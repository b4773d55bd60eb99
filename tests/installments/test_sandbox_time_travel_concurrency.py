"""Simultaneous sandbox `collect-next` calls on one plan (PostgreSQL, real
threads): the engine's claim lets exactly one of them charge; the others answer
409 `plan_not_collectable` while that installment is being collected. A call
while a refund holds the plan says that, not that it is being collected."""

import threading

import pytest
from django.conf import settings
from django.db import connection, transaction
from rest_framework.test import APIClient

from installments.collection import charging, time_travel
from installments.plans.models import Installment
from installments.refunds import services as refund_services

from ..checkout.conftest import CARD_POOR
from ..concurrency import in_thread, run_concurrently
from .conftest import (
    charges_for,
    check_ledger,
    installments_of,
    make_active_plan,
    refund,
)
from .failed_collections import failures, only_card

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction, so two calls cannot "
        "overlap there; run with DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

CALLS = 6
BEING_COLLECTED = {
    "ok": False,
    "error": {
        "code": "plan_not_collectable",
        "message": "Installment 1 is being collected right now; ask again in a moment.",
    },
}


def caller(setup, answered: threading.Semaphore):
    """One call from its own client, as six tabs of a merchant's test console
    would send; counts its answer."""

    def send():
        try:
            return APIClient().post(
                f"/api/v1/sandbox/payment-plans/{setup.plan.public_id}/collect-next",
                **setup.owner.headers,
            )
        finally:
            answered.release()

    return send


@pytest.fixture
def charge_waits_for_the_others(monkeypatch):
    """The call that charges waits (up to 30 s), between the processor's answer
    and its record, until the other five have answered: every one of them asks
    while the installment is being collected, none after it is paid (when the
    next installment would rightly be collectable)."""
    answered = threading.Semaphore(0)
    real_charge = charging.saved_method_charge

    def waiting(**kwargs):
        outcome = real_charge(**kwargs)
        for _ in range(CALLS - 1):
            answered.acquire(timeout=60)
        return outcome

    monkeypatch.setattr(charging, "saved_method_charge", waiting)
    return answered


def test_six_simultaneous_calls_collect_the_installment_once(
    charge_waits_for_the_others,
):
    setup = make_active_plan()
    first = installments_of(setup.plan)[0]

    answers = run_concurrently(caller(setup, charge_waits_for_the_others), CALLS)

    assert [a for a in answers if isinstance(a, Exception)] == []
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200] + [409] * (CALLS - 1), [a.content for a in answers]
    [collected] = [a.json()["data"] for a in answers if a.status_code == 200]
    assert [(i["status"], i["attempts"]) for i in collected["installments"]] == [
        ("paid", 1),
        ("scheduled", 0),
        ("scheduled", 0),
    ]
    for refused in (a for a in answers if a.status_code == 409):
        assert refused.json() == BEING_COLLECTED
    assert [c.reference for c in charges_for(first)] == [f"{first.public_id}_a1"]
    assert not Installment.objects.filter(plan=setup.plan, sequence__gt=1).exclude(
        status="scheduled", attempts=0
    )
    assert "clean" in check_ledger()


@pytest.fixture
def calls_wait_for_the_first_attempt(monkeypatch):
    """Every call but the first, having read which installment is next, waits
    (up to 30 s) until the first call's attempt is recorded before claiming it:
    the calls all read the installment before that attempt settled."""
    first_done = threading.Event()
    first = threading.Lock()
    # All six have read before any claims: on a busy machine a thread that
    # started late would otherwise read the installment after the failed
    # attempt, when collecting it again is right.
    all_read = threading.Barrier(CALLS, timeout=60)
    real = time_travel.installment_collect_now

    def collecting(**kwargs):
        all_read.wait()
        if not first.acquire(blocking=False):
            first_done.wait(30)
            return real(**kwargs)
        try:
            return real(**kwargs)
        finally:
            first_done.set()

    monkeypatch.setattr(time_travel, "installment_collect_now", collecting)


def test_calls_that_read_the_installment_before_a_failed_attempt_do_not_retry_it(
    calls_wait_for_the_first_attempt,
):
    setup = make_active_plan()
    only_card(setup, CARD_POOR)
    first = installments_of(setup.plan)[0]

    answers = run_concurrently(caller(setup, threading.Semaphore(0)), CALLS)

    assert [a for a in answers if isinstance(a, Exception)] == []
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200] + [409] * (CALLS - 1), [a.content for a in answers]
    [collected] = [a.json()["data"] for a in answers if a.status_code == 200]
    assert (collected["installments"][0]["status"], collected["status"]) == (
        "failed",
        "active",
    )
    for refused in (a for a in answers if a.status_code == 409):
        assert refused.json() == BEING_COLLECTED
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("failed", 1)
    assert [c.reference for c in charges_for(first)] == [f"{first.public_id}_a1"]
    assert [f["reason"] for f in failures(setup.plan)] == ["insufficient_funds"]
    assert "clean" in check_ledger()


@pytest.fixture
def refund_held_open(monkeypatch):
    """A refund that, having locked the plan and its installments, keeps its
    transaction open (up to 30 s) until `release` is set; `holding` is set once
    it holds them."""
    holding, release = threading.Event(), threading.Event()
    real = refund_services.allocate

    def allocate(**kwargs):
        holding.set()
        release.wait(30)
        return real(**kwargs)

    monkeypatch.setattr(refund_services, "allocate", allocate)
    return holding, release


def test_collect_next_while_a_refund_holds_the_plan_says_so(refund_held_open):
    """The installment is not being collected: a refund being recorded holds the
    plan. The answer says that; nothing is charged; once the refund is
    recorded, collect-next collects the installment."""
    holding, release = refund_held_open
    setup = make_active_plan()
    first = installments_of(setup.plan)[0]
    thread, refunded = in_thread(lambda: refund(setup, 10_000))
    try:
        assert holding.wait(30)
        answer = caller(setup, threading.Semaphore(0))()
    finally:
        release.set()
        thread.join(60)

    assert answer.status_code == 409, answer.content
    message = answer.json()["error"]["message"]
    assert "being collected" not in message
    assert message == (
        "This plan is being changed right now (a refund, a cancellation, a "
        "reschedule or an early payment is being recorded), so its next "
        "installment cannot be collected at this moment; ask again in a moment."
    )
    assert [r.status_code for r in refunded] == [201]
    assert not charges_for(first)
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("scheduled", 0)
    again = caller(setup, threading.Semaphore(0))()
    assert again.status_code == 200, again.content
    assert again.json()["data"]["installments"][0]["status"] == "paid"
    assert "clean" in check_ledger()


@pytest.mark.parametrize(("lock", "held"), [("FOR UPDATE", True), ("FOR SHARE", False)])
def test_a_change_holding_the_plan_is_seen_and_another_call_asking_is_not(lock, held):
    """What collect-next asks when its claim was skipped: a transaction that
    locked the plan to change it (refunds, cancellations, reschedules and early
    payments lock it FOR UPDATE) is seen at once; another collect-next asking
    the same question at the same moment (a share lock) is not, so that
    simultaneous calls are told the installment is being collected."""
    setup = make_active_plan()
    locked, release = threading.Event(), threading.Event()

    def holder():
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM installments_paymentplan WHERE id = %s {lock}",
                [setup.plan.pk],
            )
            locked.set()
            release.wait(30)

    thread, _ = in_thread(holder)
    try:
        assert locked.wait(30)
        seen = time_travel._plan_held(setup.plan.pk)
    finally:
        release.set()
        thread.join(60)

    assert seen is held
    assert time_travel._plan_held(setup.plan.pk) is False
