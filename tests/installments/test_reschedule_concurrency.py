"""Rescheduling under concurrency (PostgreSQL, real threads): customers' moves
racing each other keep to the merchant's allowance; a move racing the engine's
claim never leaves the installment collected twice, nor lost."""

import itertools
import threading
from datetime import date

import pytest
from django.conf import settings

from installments.collection import charging, collect_due
from installments.plans.errors import PaymentInProgress
from installments.reschedules import services
from installments.reschedules.errors import RescheduleNotAllowed
from installments.reschedules.models import Reschedule
from installments.reschedules.rules import CUSTOMER, MERCHANT
from payments.models import SandboxTransaction
from webhooks.models import Event

from ..concurrency import in_thread, run_concurrently
from .conftest import check_ledger, installments_of, make_active_plan
from .reschedule_days import FIRST, TODAY, on

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction, so two reschedules or a "
        "reschedule and an engine pass cannot overlap there; run with "
        "DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

WAIT = 30  # seconds, at most, for the other side
NEW = date(2026, 12, 9)
# A merchant's move gives 14 days' notice (DESIGN section 18): from FIRST, the
# 16th at the earliest.
MERCHANT_NEW = date(2026, 12, 16)


def paid_charges(installment) -> list[str]:
    return list(
        SandboxTransaction.objects.filter(
            kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE,
            status="success",
            reference__startswith=f"{installment.public_id}_",
        ).values_list("reference", flat=True)
    )


def reschedule(setup, installment, due_date, by=CUSTOMER):
    return services.installment_reschedule(
        plan=setup.plan,
        installment_id=installment.public_id,
        due_date=due_date,
        by=by,
    )


def test_simultaneous_customer_moves_with_an_allowance_of_one_let_exactly_one_through():
    with on(TODAY):
        setup = make_active_plan()
        first, second, _ = installments_of(setup.plan)
        asks = itertools.cycle([(first, date(2026, 12, 3)), (second, date(2027, 1, 5))])
        lock = threading.Lock()

        def move():
            with lock:
                installment, due_date = next(asks)
            return reschedule(setup, installment, due_date)

        results = run_concurrently(move, 6)

    moved = [result for result in results if isinstance(result, Reschedule)]
    refused = [r for r in results if isinstance(r, RescheduleNotAllowed)]
    assert (len(moved), len(refused)) == (1, 5), results
    assert Reschedule.objects.count() == 1
    assert Event.objects.filter(event_type="payment_plan.rescheduled").count() == 1
    changed = [row for row in installments_of(setup.plan) if row.reschedule_count == 1]
    assert [row.pk for row in changed] == [moved[0].installment.pk]


def test_a_move_while_the_engine_charges_the_installment_is_a_409_and_it_is_paid_once(
    monkeypatch,
):
    with on(TODAY):
        setup = make_active_plan()
    first = installments_of(setup.plan)[0]
    charging_now, answered = threading.Event(), threading.Event()
    real_charge = charging.saved_method_charge

    def engine_waits(**kwargs):
        outcome = real_charge(**kwargs)
        charging_now.set()
        answered.wait(WAIT)
        return outcome

    monkeypatch.setattr(charging, "saved_method_charge", engine_waits)
    with on(FIRST, 12):
        engine, summary = in_thread(lambda: collect_due(on_date=FIRST))
        assert charging_now.wait(WAIT)
        with pytest.raises(PaymentInProgress):
            reschedule(setup, first, MERCHANT_NEW, by=MERCHANT)
        answered.set()
        engine.join(WAIT)

    assert summary[0].tally.paid == 1
    first.refresh_from_db()
    assert (first.status, first.due_date) == ("paid", FIRST)
    with on(NEW, 12):
        assert collect_due(on_date=NEW).claimed == 0
    assert paid_charges(first) == [f"{first.public_id}_a1"]
    assert not Reschedule.objects.exists()
    check_ledger()


def test_an_engine_pass_during_a_move_skips_it_and_it_is_paid_on_its_new_date(
    monkeypatch,
):
    with on(TODAY):
        setup = make_active_plan()
    first = installments_of(setup.plan)[0]
    holding, go = threading.Event(), threading.Event()
    real_emit = services.emit_events

    def held_emit(**kwargs):
        real_emit(**kwargs)
        holding.set()
        assert go.wait(WAIT)

    monkeypatch.setattr(services, "emit_events", held_emit)
    with on(FIRST, 1):
        mover, moved = in_thread(lambda: reschedule(setup, first, NEW))
        assert holding.wait(WAIT)
        # The move holds the installment's lock: the engine's claim skips it.
        assert collect_due(on_date=FIRST).claimed == 0
        go.set()
        mover.join(WAIT)
        assert isinstance(moved[0], Reschedule), moved
        assert collect_due(on_date=FIRST).claimed == 0

    first.refresh_from_db()
    assert (first.status, first.due_date) == ("scheduled", NEW)
    with on(NEW, 12):
        assert collect_due(on_date=NEW).tally.paid == 1
    assert paid_charges(first) == [f"{first.public_id}_a1"]
    check_ledger()


def test_moves_racing_engine_passes_never_collect_twice_nor_lose_an_installment():
    for n in range(3):
        with on(TODAY):
            setup = make_active_plan(email=f"ada{n}@mail.example.com")
        first = installments_of(setup.plan)[0]
        sides = itertools.count()
        lock = threading.Lock()

        def race():
            with lock:
                side = next(sides)
            if side == 0:
                return collect_due(on_date=FIRST)
            return reschedule(setup, first, MERCHANT_NEW, by=MERCHANT)

        with on(FIRST, 1):
            results = run_concurrently(race, 2)
        assert not any(
            isinstance(r, Exception) and not isinstance(r, PaymentInProgress)
            for r in results
        ), results
        with on(MERCHANT_NEW, 12):
            collect_due(on_date=MERCHANT_NEW)
        first.refresh_from_db()
        assert first.status == "paid"
        assert len(paid_charges(first)) == 1
        moved = Reschedule.objects.filter(installment=first).exists()
        assert first.due_date == (MERCHANT_NEW if moved else FIRST)
    check_ledger()
