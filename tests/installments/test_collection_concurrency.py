"""Two engine processes at once (PostgreSQL): every due installment is collected
exactly once, counted at the sandbox, and the ledger stays clean."""

import os
import re
import subprocess
import sys
from datetime import timedelta

import pytest
from django.db import connection
from django.db.models import Count
from django.utils import timezone

from installments.models import (
    Installment,
    PaymentPlan,
    PaymentPlanStatusChange,
    start_of_day,
)
from payments.ledger.selectors import wallet_available_balance
from payments.methods.models import secret_digest
from payments.models import (
    Customer,
    LedgerTransaction,
    PaymentMethod,
    SandboxAuthorization,
    SandboxTransaction,
)

from .. import servers
from ..factories import MerchantFactory
from .conftest import check_ledger

CUSTOMERS = 1000  # one plan each, both of its two installments due: 2,000
AMOUNTS = (40_001, 39_999)


def due_installments(customers: int) -> list[PaymentPlan]:
    """`customers` customers with a card the sandbox will charge, each with an
    active plan whose two installments are due (yesterday and today), written
    with a few bulk INSERTs."""
    merchants = [MerchantFactory(status="active") for _ in range(10)]
    now = timezone.now()
    today = timezone.localdate()
    rows = Customer.objects.bulk_create(
        Customer(
            email=f"load{n}@mail.example.com",
            password="!",
            first_name="Load",
            last_name=str(n),
            phone="+2348000000000",
        )
        for n in range(customers)
    )
    codes = [f"AUTH_load_{n:06d}" for n in range(customers)]
    SandboxAuthorization.objects.bulk_create(
        SandboxAuthorization(
            authorization_code=code,
            channel="card",
            email=customer.email,
            last4="4081",
            brand="visa",
        )
        for code, customer in zip(codes, rows, strict=True)
    )
    PaymentMethod.objects.bulk_create(
        PaymentMethod(
            customer=customer,
            type="card",
            is_default=True,
            label="Visa ••••4081",
            last4="4081",
            processor="sandbox",
            authorization_code=code,
            authorization_code_hash=secret_digest(code),
            fingerprint=secret_digest(f"card:{code}"),
        )
        for code, customer in zip(codes, rows, strict=True)
    )
    plans = PaymentPlan.objects.bulk_create(
        PaymentPlan(
            merchant=merchants[n % len(merchants)],
            customer=customer,
            order_reference=f"LOAD-{n}",
            total_amount=100_000,
            deposit_amount=20_000,
            deposit_percent=20,
            tier="B",
            customer_score=500,
            schedule_type="weekly",
            installment_count=2,
            installment_amounts=list(AMOUNTS),
            status=PaymentPlan.Status.ACTIVE,
            activated_at=now,
            goods_released_at=now,
        )
        for n, customer in enumerate(rows)
    )
    Installment.objects.bulk_create(
        Installment(
            plan=plan,
            sequence=sequence,
            amount=amount,
            original_amount=amount,
            due_date=due,
            next_attempt_at=start_of_day(due),
        )
        for plan in plans
        for sequence, (amount, due) in enumerate(
            zip(AMOUNTS, (today - timedelta(days=1), today), strict=True), start=1
        )
    )
    return plans


def engine_process() -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.settings",
        "DATABASE_URL": servers.test_database_url(),
        # A few threads each: two processes must not use up the server's
        # connections (the sandbox holds one per thread).
        "INSTALLMENT_COLLECTION_THREADS": "4",
    }
    return subprocess.Popen(
        [sys.executable, "manage.py", "collect_installments", "--batch-size", "200"],
        cwd=servers.ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


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
