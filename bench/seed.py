"""Seeding for the engine and webhook sections, run inside Django:

    python -m bench.seed engine INSTALLMENTS MERCHANTS CUSTOMERS
    python -m bench.seed webhooks EVENTS URL SECRET

Rows go in through the models' tables with bulk_create (the models fill their
defaults, the encrypted fields encrypt), consistent with what the product's own
flows leave: an active merchant, a customer with one active default sandbox card
whose sandbox authorization succeeds, an active plan whose installments are due.
"""

import hashlib
import json
import sys
from datetime import timedelta

import django

django.setup()

from django.db import transaction  # noqa: E402
from django.utils import timezone  # noqa: E402

from config.api.ids import new_public_id, random_token  # noqa: E402
from installments.plans.models import Installment, PaymentPlan  # noqa: E402
from merchants.models import Merchant  # noqa: E402
from payments.customers.models import Customer  # noqa: E402
from payments.gateway.models import SandboxAuthorization  # noqa: E402
from payments.methods.models import PaymentMethod  # noqa: E402

BATCH = 5000


def _merchants(count: int, prefix: str, **fields) -> list[Merchant]:
    now = timezone.now()
    rows = [
        Merchant(
            public_id=new_public_id("mer"),
            email=f"{prefix}{i}@bench.ng",
            business_name=f"Bench {i}",
            business_url="https://bench.ng",
            status=Merchant.Status.ACTIVE,
            api_access_enabled=True,
            approved_at=now,
            **fields,
        )
        for i in range(count)
    ]
    return Merchant.objects.bulk_create(rows, batch_size=BATCH)


def _test_sides(shops: list[Merchant]) -> list[Merchant]:
    """Each merchant's test side (DESIGN section 21), as
    `merchants.services.test_side_for` makes it."""
    return Merchant.objects.bulk_create(
        [
            Merchant(
                public_id=f"{shop.public_id}_test",
                livemode=False,
                live_account=shop,
                email=shop.email,
                business_name=shop.business_name,
                business_url=shop.business_url,
                status=Merchant.Status.ACTIVE,
                api_access_enabled=True,
                approved_at=shop.approved_at,
            )
            for shop in shops
        ],
        batch_size=BATCH,
    )


def engine(installments: int, merchants: int, customers: int) -> None:
    """Half the plans (and so half the due installments) are on the merchants'
    test sides: the engine's figure is for both sides' passes."""
    per_plan = max(1, installments // customers)
    now = timezone.now()
    yesterday = timezone.localdate(now) - timedelta(days=1)
    with transaction.atomic():
        live = _merchants(merchants, "engine")
        test = _test_sides(live)
        people = Customer.objects.bulk_create(
            [
                Customer(
                    public_id=new_public_id("cus"),
                    email=f"shopper{i}@mail.ng",
                    password="!",
                    first_name="Ada",
                    last_name=f"Shopper{i}",
                )
                for i in range(customers)
            ],
            batch_size=BATCH,
        )
        codes = [f"AUTH_{random_token(64).lower()}" for _ in people]
        SandboxAuthorization.objects.bulk_create(
            [
                SandboxAuthorization(
                    authorization_code=code,
                    channel="card",
                    email=person.email,
                    signature=f"SIG_{person.pk}",
                    brand="visa",
                    last4="4081",
                    exp_month="12",
                    exp_year="2030",
                )
                for person, code in zip(people, codes, strict=True)
            ],
            batch_size=BATCH,
        )
        PaymentMethod.objects.bulk_create(
            [
                PaymentMethod(
                    public_id=new_public_id("pm"),
                    customer=person,
                    # The side of the one plan this customer has (below).
                    livemode=i % 2 == 0,
                    type=PaymentMethod.Type.CARD,
                    status=PaymentMethod.Status.ACTIVE,
                    is_default=True,
                    label="Visa ending 4081",
                    last4="4081",
                    brand="visa",
                    exp_month="12",
                    exp_year="2030",
                    processor="sandbox",
                    authorization_code=code,
                    authorization_code_hash=hashlib.sha256(code.encode()).hexdigest(),
                    fingerprint=hashlib.sha256(f"SIG_{person.pk}".encode()).hexdigest(),
                )
                for i, (person, code) in enumerate(zip(people, codes, strict=True))
            ],
            batch_size=BATCH,
        )
        amount = 50_000
        count = per_plan + 1  # the last one is not due yet
        plans = PaymentPlan.objects.bulk_create(
            [
                PaymentPlan(
                    public_id=new_public_id("plan"),
                    merchant=(live, test)[i % 2][(i // 2) % len(live)],
                    customer=person,
                    order_reference=f"order-{i}",
                    currency="NGN",
                    total_amount=amount * (count + 1),
                    deposit_amount=amount,
                    deposit_percent=10,
                    tier="B",
                    customer_score=500,
                    schedule_type="monthly",
                    installment_count=count,
                    installment_amounts=[amount] * count,
                    status=PaymentPlan.Status.ACTIVE,
                    activated_at=now - timedelta(days=40),
                    status_changed_at=now - timedelta(days=40),
                )
                for i, person in enumerate(people)
            ],
            batch_size=BATCH,
        )
        rows = []
        for n in range(installments):
            plan = plans[n % len(plans)]
            sequence = n // len(plans) + 1
            rows.append(
                Installment(
                    public_id=new_public_id("inst"),
                    plan=plan,
                    livemode=plan.merchant.livemode,
                    sequence=sequence,
                    amount=amount,
                    original_amount=amount,
                    currency="NGN",
                    due_date=yesterday,
                    status=Installment.Status.SCHEDULED,
                    next_attempt_at=now - timedelta(hours=1),
                    status_changed_at=now - timedelta(days=40),
                )
            )
        for plan in plans:  # one installment of each plan stays ahead
            rows.append(
                Installment(
                    public_id=new_public_id("inst"),
                    plan=plan,
                    livemode=plan.merchant.livemode,
                    sequence=per_plan + 1 + (installments % len(plans) > 0),
                    amount=amount,
                    original_amount=amount,
                    currency="NGN",
                    due_date=yesterday + timedelta(days=60),
                    status=Installment.Status.SCHEDULED,
                    next_attempt_at=now + timedelta(days=60),
                    status_changed_at=now - timedelta(days=40),
                )
            )
        Installment.objects.bulk_create(rows, batch_size=BATCH)


def webhooks(events: int, url: str, secret: str) -> None:
    """One merchant whose webhook URL is the receiver; prints its pk."""
    (shop,) = _merchants(
        1, f"hooks{random_token(32).lower()}", webhook_url=url, webhook_secret=secret
    )
    print(json.dumps({"merchant_pk": shop.pk}))


if __name__ == "__main__":
    kind, *args = sys.argv[1:]
    if kind == "engine":
        engine(*map(int, args))
    elif kind == "webhooks":
        webhooks(int(args[0]), args[1], args[2])
