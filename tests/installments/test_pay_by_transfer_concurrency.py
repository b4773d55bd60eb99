"""A bank transfer payment whose money lands while an engine pass and a refund
act on the same plan (PostgreSQL, real threads, DESIGN section 17): each
installment is paid at most once, whichever comes first, and no kobo moves
twice (the ledger's checks hold; a refund never takes an installment the
transfer holds)."""

import threading

import pytest
from django.conf import settings

from installments.early.models import EarlyPayment
from installments.early.sandbox import early_payment_sandbox_complete
from installments.early.services import plan_pay_offline
from installments.plans.models import PaymentPlan
from installments.refunds.models import RefundPart
from payments.models import LedgerTransaction, SandboxTransaction

from ..concurrency import run_concurrently
from .conftest import check_ledger, collect, installments_of, make_active_plan, refund

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction, so a transfer landing, "
        "an engine pass and a refund cannot overlap there; run with "
        "DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

PLANS = 4


def successful_charges_covering(row) -> list[str]:
    """The successful charges at the sandbox that paid for this installment:
    its own references (engine `_a`, early `_p`) and a payoff covering it."""
    own = SandboxTransaction.objects.filter(
        status="success", reference__startswith=f"{row.public_id}_"
    ).values_list("reference", flat=True)
    payoffs = EarlyPayment.objects.filter(
        items__installment=row, kind="payoff"
    ).values_list("reference", flat=True)
    paid_payoffs = SandboxTransaction.objects.filter(
        reference__in=list(payoffs), status="success"
    ).values_list("reference", flat=True)
    return sorted([*own, *paid_payoffs])


@pytest.mark.parametrize("what", ["installment", "payoff"])
def test_a_transfer_landing_racing_an_engine_pass_and_a_refund_pays_each_once(what):
    setups = [
        make_active_plan(email=f"t{n}@mail.example.com", order_reference=f"T-{n}")
        for n in range(PLANS)
    ]
    payments = []
    for setup in setups:
        first = installments_of(setup.plan)[0]
        payments.append(
            plan_pay_offline(
                customer=setup.plan.customer,
                plan=setup.plan,
                installment_id=first.public_id if what == "installment" else None,
                channel="bank_transfer",
            )
        )
    due = installments_of(setups[0].plan)[-1].due_date
    jobs = [lambda p=payment: early_payment_sandbox_complete(p) for payment in payments]
    jobs += [lambda s=setup: refund(s, 20_000) for setup in setups]
    jobs += [lambda: collect(due)] * 2
    index = iter(range(len(jobs)))
    lock = threading.Lock()

    def next_job():
        with lock:
            job = jobs[next(index)]
        return job()

    results = run_concurrently(next_job, len(jobs))

    assert [r for r in results if isinstance(r, Exception)] == []
    refunds = [r for r in results if hasattr(r, "status_code")]
    assert {r.status_code for r in refunds} <= {201, 409}, [r.content for r in refunds]
    for setup, payment in zip(setups, payments, strict=True):
        payment.refresh_from_db()
        assert payment.status == "succeeded"
        held = {item.installment_id for item in payment.items.all()}
        for row in installments_of(setup.plan):
            covering = successful_charges_covering(row)
            collections = LedgerTransaction.objects.filter(
                kind="collection", resource_id=row.public_id
            ).count()
            if row.status == "paid":
                assert len(covering) == 1, (row.public_id, covering)
                if row.pk in held:
                    assert covering == [payment.reference]
            else:
                assert covering == [], (row.public_id, row.status, covering)
            # A payoff's one collection is the plan's; an installment's its own.
            assert collections <= 1
        plan = PaymentPlan.objects.get(pk=setup.plan.pk)
        parts = RefundPart.objects.filter(refund__plan=plan)
        for reference in set(parts.values_list("collection_reference", flat=True)):
            [collection] = LedgerTransaction.objects.filter(
                kind="collection", processor_reference=reference
            )
            taken = sum(p.amount for p in parts.filter(collection_reference=reference))
            assert taken <= collection.amount
    assert "clean" in check_ledger()
