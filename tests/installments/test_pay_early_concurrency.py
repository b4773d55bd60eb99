"""An early payment racing an engine pass over the same installment (PostgreSQL,
real threads): the claim lets exactly one of them charge it, whichever comes
first; the other answers 409 (the customer) or claims nothing (the engine)."""

import itertools
import re
import threading

import pytest
from django.conf import settings

from installments.collection import charging, collect_due
from installments.early import services
from installments.early.models import EarlyPayment, EarlyPaymentItem
from installments.plans.models import Installment
from payments.models import SandboxTransaction

from ..concurrency import in_thread, run_concurrently
from ..conftest import make_merchant_with_key
from .conftest import check_ledger, installments_of, make_active_plan

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction, so an early payment and "
        "an engine pass cannot overlap there; run with DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

WAIT = 30  # seconds, at most, for the other side


def pay(setup, **body):
    return setup.shopper.post(f"{setup.url}/pay", body)


def charges_covering(installment: Installment) -> list[str]:
    """Successful charges at the sandbox that paid for this installment: its own
    references (engine `_a`, early `_p`) and the payoffs that covered it."""
    own = SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE,
        status="success",
        reference__startswith=f"{installment.public_id}_",
    ).values_list("reference", flat=True)
    payoffs = set(
        EarlyPaymentItem.objects.filter(
            installment=installment, early_payment__kind="payoff"
        ).values_list("early_payment__reference", flat=True)
    )
    paid_payoffs = SandboxTransaction.objects.filter(
        reference__in=payoffs, status="success"
    ).values_list("reference", flat=True)
    return sorted([*own, *paid_payoffs])


def test_a_customer_paying_while_the_engine_charges_gets_409_and_no_charge(
    monkeypatch,
):
    setup = make_active_plan()
    first = installments_of(setup.plan)[0]
    claimed, answered = threading.Event(), threading.Event()
    real_charge = charging.saved_method_charge

    def engine_waits(**kwargs):
        # The processor has answered; the engine has not recorded it yet.
        outcome = real_charge(**kwargs)
        claimed.set()
        answered.wait(WAIT)
        return outcome

    monkeypatch.setattr(charging, "saved_method_charge", engine_waits)
    engine, summary = in_thread(lambda: collect_due(on_date=first.due_date))
    assert claimed.wait(WAIT)
    answers = [pay(setup, installment_id=first.public_id), pay(setup, payoff=True)]
    answered.set()
    engine.join(WAIT)

    assert [a.status_code for a in answers] == [409, 409], [a.content for a in answers]
    assert {a.json()["error"]["code"] for a in answers} == {"payment_in_progress"}
    assert summary[0].tally.paid == 1
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 1)
    assert charges_covering(first) == [f"{first.public_id}_a1"]
    assert not EarlyPayment.objects.exists()
    assert "clean" in check_ledger()


@pytest.mark.parametrize("body", ["one", "payoff"])
def test_an_engine_pass_while_the_customer_pays_claims_nothing(monkeypatch, body):
    setup = make_active_plan()
    rows = installments_of(setup.plan)
    first = rows[0]
    charged, engine_done = threading.Event(), threading.Event()
    real_charge = services.saved_method_charge

    def customer_waits(**kwargs):
        # The processor has answered; the customer's request has not recorded it.
        outcome = real_charge(**kwargs)
        charged.set()
        engine_done.wait(WAIT)
        return outcome

    monkeypatch.setattr(services, "saved_method_charge", customer_waits)
    what = {"installment_id": first.public_id} if body == "one" else {"payoff": True}
    customer, answer = in_thread(lambda: pay(setup, **what))
    assert charged.wait(WAIT)
    # Every installment is due by then; the one(s) being paid are in flight.
    summary = collect_due(on_date=rows[-1].due_date)
    engine_done.set()
    customer.join(WAIT)

    assert answer[0].status_code == 200, answer[0].content
    paid_early = [first] if body == "one" else rows
    assert summary.claimed == len(rows) - len(paid_early)
    for row in rows:
        row.refresh_from_db()
        assert (row.status, row.attempts) == ("paid", 1)
        [charge] = charges_covering(row)
        early = row in paid_early
        assert bool(re.search(r"_po?\d+$", charge)) == early, charge
    assert "clean" in check_ledger()


def test_early_payments_racing_an_engine_pass_charge_each_installment_once():
    owner = make_merchant_with_key()
    setups = [
        make_active_plan(
            owner,
            email=f"racer{n}@mail.example.com",
            order_reference=f"RACE-{n}",
            customer_email=f"racer{n}@mail.example.com",
        )
        for n in range(6)
    ]
    due_date = installments_of(setups[0].plan)[0].due_date
    roles = itertools.count()

    def act():
        role = next(roles)
        if role == 0:
            return collect_due(on_date=due_date)
        setup = setups[role - 1]
        if role % 2:
            return pay(setup, installment_id=installments_of(setup.plan)[0].public_id)
        return pay(setup, payoff=True)

    results = run_concurrently(act, len(setups) + 1)

    assert [r for r in results if isinstance(r, Exception)] == []
    answers = [r for r in results if not hasattr(r, "tally")]
    assert {a.status_code for a in answers} <= {200, 409}, [a.content for a in answers]
    for setup in setups:
        for row in installments_of(setup.plan):
            covering = charges_covering(row)
            if row.status == "paid":
                assert len(covering) == 1, (row.public_id, covering)
            else:
                assert (row.status, covering) == ("scheduled", []), row.public_id
        assert installments_of(setup.plan)[0].status == "paid"
    assert not SandboxTransaction.objects.exclude(status="success").exists()
    assert "clean" in check_ledger()
