"""Refunds under concurrency (PostgreSQL, real threads, DESIGN section 14):
simultaneous refunds on one plan never refund more than its refundable total;
a refund and an engine pass over the same plan never both take one
installment: the refund never reduces or refunds one being charged, the engine
never charges one a refund cancelled."""

import threading
import uuid

import pytest
from django.conf import settings

from installments.collection import charging
from installments.plans.models import PaymentPlan
from installments.refunds import services as refund_services
from installments.refunds.models import Refund, RefundPart

from ..concurrency import run_concurrently
from .conftest import (
    charges_for,
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
    refund,
)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction, so two refunds cannot "
        "overlap there; run with DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

TOTAL = 250_000
THREADS = 6


def answers_of(setup, amount: int, count: int = THREADS, key=None) -> list:
    answers = run_concurrently(lambda: refund(setup, amount, key=key), count)
    assert [a for a in answers if isinstance(a, Exception)] == []
    return answers


def assert_never_more_than_refundable(setup) -> None:
    plan = PaymentPlan.objects.get(pk=setup.plan.pk)
    refunds = Refund.objects.filter(plan=plan)
    assert plan.amount_refunded == sum(r.amount for r in refunds) <= TOTAL
    for reference in set(RefundPart.objects.values_list("collection_reference")):
        parts = RefundPart.objects.filter(collection_reference=reference[0])
        assert sum(p.amount for p in parts) <= 75_000 + 58_334
    assert "clean" in check_ledger()


def test_simultaneous_refunds_never_refund_more_than_the_plan_is_worth():
    setup = make_active_plan()
    collect(installments_of(setup.plan)[0].due_date)

    answers = answers_of(setup, 100_000)

    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [201, 201] + [422] * (THREADS - 2), [a.content for a in answers]
    assert PaymentPlan.objects.get(pk=setup.plan.pk).amount_refunded == 200_000
    assert_never_more_than_refundable(setup)


def test_simultaneous_refunds_of_everything_refund_it_once():
    setup = make_active_plan()
    collect(installments_of(setup.plan)[0].due_date)

    answers = answers_of(setup, TOTAL)

    assert sorted(a.status_code for a in answers) == [201] + [422] * (THREADS - 1)
    assert_never_more_than_refundable(setup)
    plan = PaymentPlan.objects.get(pk=setup.plan.pk)
    assert plan.status == "cancelled"


def test_simultaneous_requests_with_one_key_create_one_refund():
    setup = make_active_plan()
    key = uuid.uuid4()

    answers = answers_of(setup, 10_000, key=key)

    assert {a.status_code for a in answers} == {201}
    assert len({a.json()["data"]["id"] for a in answers}) == 1
    assert Refund.objects.count() == 1
    assert PaymentPlan.objects.get(pk=setup.plan.pk).amount_refunded == 10_000


@pytest.fixture
def engine_pauses_after_charging(monkeypatch):
    """The engine, between the processor's answer and its record (the
    installment `processing`), waits until the test lets it go on."""
    charged, go_on = threading.Event(), threading.Event()
    real_charge = charging.saved_method_charge

    def pause(**kwargs):
        outcome = real_charge(**kwargs)
        charged.set()
        go_on.wait(30)
        return outcome

    monkeypatch.setattr(charging, "saved_method_charge", pause)
    return charged, go_on


def test_a_refund_never_takes_an_installment_being_charged(
    engine_pauses_after_charging,
):
    charged, go_on = engine_pauses_after_charging
    setup = make_active_plan()
    first = installments_of(setup.plan)[0]
    engine = threading.Thread(target=collect, args=(first.due_date,))
    engine.start()
    try:
        assert charged.wait(30)
        busy = refund(setup, 58_333 * 2 + 1)
        meanwhile = refund(setup, 58_333)
    finally:
        go_on.set()
        engine.join(60)

    assert busy.status_code == 409 and busy.json()["error"]["code"] == "plan_busy"
    assert meanwhile.status_code == 201
    first.refresh_from_db()
    assert (first.status, first.amount) == ("paid", 58_334)
    assert [c.reference for c in charges_for(first)] == [f"{first.public_id}_a1"]
    assert "clean" in check_ledger()


@pytest.fixture
def refund_pauses_holding_its_locks(monkeypatch):
    """The refund, with the plan's and the installments' locks taken and its
    allocation made, waits until the test lets it commit."""
    allocated, go_on = threading.Event(), threading.Event()
    real = refund_services.allocate

    def pausing(**kwargs):
        allocation = real(**kwargs)
        allocated.set()
        go_on.wait(30)
        return allocation

    monkeypatch.setattr(refund_services, "allocate", pausing)
    return allocated, go_on


def test_the_engine_never_charges_an_installment_a_refund_cancels(
    refund_pauses_holding_its_locks,
):
    allocated, go_on = refund_pauses_holding_its_locks
    setup = make_active_plan()
    first = installments_of(setup.plan)[0]
    answers = []
    refunding = threading.Thread(target=lambda: answers.append(refund(setup, TOTAL)))
    refunding.start()
    try:
        assert allocated.wait(30)
        collect(first.due_date)  # skips what the refund holds
    finally:
        go_on.set()
        refunding.join(60)
    collect(first.due_date)  # and after: nothing cancelled is charged

    assert answers[0].status_code == 201, answers[0].content
    first.refresh_from_db()
    assert first.status == "cancelled"
    assert not charges_for(first).exists()
    assert "clean" in check_ledger()


def test_refunds_racing_engine_passes_keep_every_rule():
    """No pause: a refund of everything and passes over every due date, at once,
    on several plans; whichever wins each race, the books and the statuses
    agree."""
    setups = [
        make_active_plan(email=f"c{n}@mail.example.com", order_reference=f"O-{n}")
        for n in range(3)
    ]
    due = installments_of(setups[0].plan)[-1].due_date
    jobs = [lambda s=setup: refund(s, TOTAL) for setup in setups]
    jobs += [lambda: collect(due)] * 2
    index = iter(range(len(jobs)))
    lock = threading.Lock()

    def next_job():
        with lock:
            job = jobs[next(index)]
        return job()

    results = run_concurrently(next_job, len(jobs))

    assert [r for r in results if isinstance(r, Exception)] == []
    for setup in setups:
        for row in installments_of(setup.plan):
            charged = charges_for(row).exists()
            assert not (row.status == "cancelled" and charged), row
            assert row.status in ("paid", "cancelled"), row
    assert "clean" in check_ledger()
