"""Two engine processes at once (PostgreSQL): every due installment is collected
exactly once, counted at the sandbox, and the ledger stays clean."""

import re

import pytest
from django.db import connection
from django.db.models import Count

from installments.plans.history import PaymentPlanStatusChange
from installments.plans.models import Installment, PaymentPlan
from payments.ledger.selectors import wallet_available_balance
from payments.models import (
    Customer,
    LedgerTransaction,
    SandboxTransaction,
)

from .conftest import check_ledger
from .engines import AMOUNTS, due_installments, engine_process

CUSTOMERS = 1000  # one plan each, both of its two installments due: 2,000


@pytest.mark.postgres
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL (two real engines)"
)
@pytest.mark.django_db(transaction=True)
def test_two_engine_processes_collect_each_installment_exactly_once():
    plans = due_installments(CUSTOMERS)
    assert Installment.objects.count() == 2 * CUSTOMERS

    engines = [engine_process(), engine_process()]
    outputs = []
    for engine in engines:
        stdout, stderr = engine.communicate(timeout=600)
        assert engine.returncode == 0, stderr[-3000:]
        outputs.append(stdout)

    claimed = [
        int(re.search(r"(\d+) attempt\(s\)", output).group(1)) for output in outputs
    ]
    assert sum(claimed) == 2 * CUSTOMERS, outputs
    assert not Installment.objects.exclude(status="paid").exists()
    # Counted at the sandbox: one charge per installment, its first reference.
    charges = SandboxTransaction.objects.filter(kind="authorization_charge")
    assert charges.count() == 2 * CUSTOMERS
    assert set(charges.values_list("reference", flat=True)) == {
        f"{public_id}_a1"
        for public_id in Installment.objects.values_list("public_id", flat=True)
    }
    assert not charges.exclude(status="success").exists()
    collections = LedgerTransaction.objects.filter(kind="collection")
    assert collections.count() == 2 * CUSTOMERS
    # Each plan completed once, though its installments may have been recorded
    # by different processes.
    assert PaymentPlan.objects.filter(status="completed").count() == CUSTOMERS
    completions = (
        PaymentPlanStatusChange.objects.filter(to_status="completed")
        .values("plan_id")
        .annotate(count=Count("id"))
    )
    assert {row["count"] for row in completions} == {1}
    assert len(completions) == len(plans)
    # Two paid on their first attempt and one completed plan each.
    assert set(Customer.objects.values_list("score", flat=True)) == {500 + 40 + 50}
    merchant = plans[0].merchant
    net_each = sum(amount - (amount * 25 + 500) // 1000 for amount in AMOUNTS)
    assert wallet_available_balance(merchant) == net_each * (CUSTOMERS // 10)
    assert "clean" in check_ledger()
