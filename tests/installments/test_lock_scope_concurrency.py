"""A plan's lock is the plan's row only (PostgreSQL, real threads; issue 25 item
3): reading the plan with its merchant and customer joined, for update, must not
lock their rows too, or every money path of one merchant queues on one row and
a refund settlement deadlocks with an engine pass. Refunds, their settlement,
early payments and engine passes over one merchant's plans, all at once, each
finish without a deadlock and leave the books balanced."""

import itertools

import pytest
from django.conf import settings
from django.db import DatabaseError, connection, transaction

from installments.early import outcomes as early_outcomes
from installments.early.models import EarlyPayment
from installments.plans.models import PaymentPlan
from installments.plans.services import lock_plan
from installments.refunds import settlement
from installments.refunds.models import RefundPart
from merchants.models import Merchant
from payments.customers.models import Customer
from payments.methods.services.saved_charges import SUCCEEDED, ChargeOutcome

from ..concurrency import in_thread, run_concurrently
from ..conftest import make_merchant_with_key
from .conftest import (
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
    refund,
    sandbox_refunds_settle,
)

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite has no row locks; run with DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

WAIT = 60  # seconds, at most, for a probing thread
# Once the first installment is collected (116,666 unpaid), a refund of this
# much takes what is unpaid off and pays 13,334 back: a processor refund.
RETURNING = 130_000


def _nowait(model, pk: int) -> str:
    """From this thread's own connection: can the row be locked right now?"""
    try:
        with transaction.atomic():
            model.objects.select_for_update(nowait=True).filter(pk=pk).exists()
    except DatabaseError as error:
        assert "could not obtain lock" in str(error), error
        return "locked"
    return "free"


def rows_locked_by_another_connection(plan: PaymentPlan) -> dict[str, str]:
    """Whether the plan's, its merchant's and its customer's rows are locked,
    asked from another connection while this one's transaction goes on."""

    def probe():
        return {
            "plan": _nowait(PaymentPlan, plan.pk),
            "merchant": _nowait(Merchant, plan.merchant_id),
            "customer": _nowait(Customer, plan.customer_id),
        }

    thread, out = in_thread(probe)
    thread.join(WAIT)
    assert not thread.is_alive()
    if isinstance(out[0], Exception):
        raise out[0]
    return out[0]


def pay(setup, **body):
    return setup.shopper.post(f"{setup.url}/pay", body)


def _lock_plan(setup):
    lock_plan(setup.plan)


def _part_settle(setup):
    collect(installments_of(setup.plan)[0].due_date)
    assert refund(setup, RETURNING).status_code == 201
    part = RefundPart.objects.filter(refund__plan=setup.plan).first()
    assert part.status == "pending"
    return lambda: settlement.part_settle(part_pk=part.pk, status="pending")


def _early_payment_record(setup):
    first = installments_of(setup.plan)[0]
    assert pay(setup, installment_id=first.public_id).status_code == 200
    payment = EarlyPayment.objects.get(plan=setup.plan)
    outcome = ChargeOutcome(status=SUCCEEDED, reference=payment.reference)
    return lambda: early_outcomes.early_payment_record(payment=payment, outcome=outcome)


@pytest.mark.parametrize(
    "prepare",
    [lambda setup: lambda: _lock_plan(setup), _part_settle, _early_payment_record],
    ids=["lock_plan", "refund part_settle", "early payment outcome"],
)
def test_a_plans_lock_leaves_its_merchant_and_customer_free(prepare):
    setup = make_active_plan()
    locking = prepare(setup)

    with transaction.atomic():
        locking()
        held = rows_locked_by_another_connection(setup.plan)

    assert held == {"plan": "locked", "merchant": "free", "customer": "free"}


def test_refunds_early_payments_and_engine_passes_on_one_merchants_plans_at_once():
    owner = make_merchant_with_key()
    setups = [
        make_active_plan(
            owner,
            email=f"lock{n}@mail.example.com",
            order_reference=f"LOCK-{n}",
            customer_email=f"lock{n}@mail.example.com",
        )
        for n in range(6)
    ]
    rows = installments_of(setups[0].plan)
    # The first installments collected, and a refund of each of the first three
    # plans that pays money back waiting for the processor: settling it takes
    # the plan's lock (part_settle) while everything else runs.
    collect(rows[0].due_date)
    for setup in setups[:3]:
        assert refund(setup, RETURNING).status_code == 201
    assert RefundPart.objects.filter(status="pending").count() >= 3
    jobs = [
        *(lambda s=setup: refund(s, 30_000) for setup in setups[:3]),
        *(lambda s=setup: pay(s, payoff=True) for setup in setups[3:]),
        *(lambda s=setup: refund(s, 10_000) for setup in setups[3:]),
        lambda: collect(rows[1].due_date),
        lambda: collect(rows[-1].due_date),
        sandbox_refunds_settle,
        sandbox_refunds_settle,
    ]
    roles = itertools.count()
    queries: list[str] = []

    def act():
        # Every locking statement of this thread is kept, to check its scope.
        def keep(execute, sql, params, many, context):
            if "FOR UPDATE" in sql:
                queries.append(sql)
            return execute(sql, params, many, context)

        job = jobs[next(roles)]
        with connection.execute_wrapper(keep):
            return job()

    results = run_concurrently(act, len(jobs))

    errors = [r for r in results if isinstance(r, Exception)]
    assert errors == [], errors
    answers = [r for r in results if hasattr(r, "status_code")]
    # Each answer is the operation's own (an early payment may find the engine
    # charging an installment, 409 payment_in_progress, or nothing left to pay,
    # 409 plan_not_collectable), never a database error.
    assert {a.status_code for a in answers} <= {200, 201, 409}, [
        a.content for a in answers
    ]
    for answer in answers:
        assert b"deadlock" not in answer.content
        if answer.status_code == 409:
            assert answer.json()["error"]["code"] in (
                "payment_in_progress",
                "plan_busy",
                "plan_not_collectable",
            ), answer.content
    # The next runs: what a pass skipped while another held it is collected,
    # what a refund is still asking the processor for is settled.
    collect(rows[-1].due_date)
    sandbox_refunds_settle()
    assert not RefundPart.objects.exclude(status="processed").exists()
    for setup in setups:
        for row in installments_of(setup.plan):
            assert row.status in ("paid", "cancelled"), row
    joined = [sql for sql in queries if " JOIN " in sql]
    assert joined, "no locking query joined: the check below checked nothing"
    assert [sql for sql in joined if "FOR UPDATE OF" not in sql] == []
    assert "clean" in check_ledger()
