"""Many installments due at once, and the engine in a process of its own."""

import os
import subprocess
import sys
from datetime import timedelta

from django.utils import timezone

from installments.plans.models import Installment, PaymentPlan, start_of_day
from payments.methods.models import secret_digest
from payments.models import (
    Customer,
    PaymentMethod,
    SandboxAuthorization,
)

from .. import servers
from ..factories import MerchantFactory

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
