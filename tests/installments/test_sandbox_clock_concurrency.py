"""The sandbox clock on PostgreSQL: simultaneous advances of one plan (real
threads, each its own connection) charge every attempt once, and the engine's
claim scoped to one plan reads an index, not the whole table."""

import threading
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from installments.collection import charging, claims
from installments.plans.models import Installment, PaymentPlan
from payments.gateway.processors.sandbox.values import CARD_FAILS_TWICE

from ..checkout.conftest import add_card, complete, open_session, register
from ..concurrency import run_concurrently
from ..conftest import make_merchant_with_key
from .conftest import PlanSetup, charges_for, check_ledger, installments_of

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction, so two calls cannot "
        "overlap there; run with DATABASE_URL=postgres://...",
    ),
]

CALLS = 4
BUSY = {
    "ok": False,
    "error": {
        "code": "plan_busy",
        "message": "Another advance of this plan is running; ask again once it has "
        "answered.",
    },
}


def fails_twice_plan() -> PlanSetup:
    owner = make_merchant_with_key()
    shopper = register("ada@mail.example.com")
    response = complete(
        shopper, open_session(owner), add_card(shopper, CARD_FAILS_TWICE)
    )
    assert response.status_code == 201, response.content
    plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
    return PlanSetup(owner=owner, shopper=shopper, plan=plan)


@pytest.fixture
def charge_waits_for_the_others(monkeypatch):
    """The advance that charges waits (up to 30 s) after its first charge until
    every other call has answered: they all ask while it runs."""
    answered = threading.Semaphore(0)
    first = threading.Event()
    real_charge = charging.saved_method_charge

    def waiting(**kwargs):
        outcome = real_charge(**kwargs)
        if not first.is_set():
            first.set()
            for _ in range(CALLS - 1):
                answered.acquire(timeout=60)
        return outcome

    monkeypatch.setattr(charging, "saved_method_charge", waiting)
    return answered


@pytest.mark.django_db(transaction=True)
def test_simultaneous_advances_charge_every_attempt_once(charge_waits_for_the_others):
    setup = fails_twice_plan()
    to = installments_of(setup.plan)[-1].due_date + timedelta(days=3)

    def send():
        try:
            return APIClient().post(
                f"/api/v1/sandbox/payment-plans/{setup.plan.public_id}/advance",
                {"to": to.isoformat()},
                format="json",
                **setup.owner.headers,
            )
        finally:
            charge_waits_for_the_others.release()

    answers = run_concurrently(send, CALLS)

    assert [a for a in answers if isinstance(a, Exception)] == []
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200] + [409] * (CALLS - 1), [a.content for a in answers]
    for refused in (a for a in answers if a.status_code == 409):
        assert refused.json() == BUSY
    [advanced] = [a.json() for a in answers if a.status_code == 200]
    assert advanced["data"]["status"] == "completed"
    for installment in installments_of(setup.plan):
        assert [c.reference for c in charges_for(installment)] == [
            f"{installment.public_id}_a{n}" for n in (1, 2, 3)
        ]
    again = APIClient().post(
        f"/api/v1/sandbox/payment-plans/{setup.plan.public_id}/advance",
        {"to": to.isoformat()},
        format="json",
        **setup.owner.headers,
    )
    assert again.status_code == 200
    assert sum(day["attempts"] for day in again.json()["advance"]["days"]) == 0
    assert "clean" in check_ledger()


def many_plans_like(plan: PaymentPlan, count: int) -> None:
    """`count` copies of `plan` with its installments (rows only), and fresh
    statistics: a table in which reading every due row would show."""
    original = PaymentPlan.objects.get(pk=plan.pk)
    values = {
        f.attname: getattr(original, f.attname)
        for f in PaymentPlan._meta.concrete_fields
        if f.attname != "id"
    }
    PaymentPlan.objects.bulk_create(
        PaymentPlan(
            **values | {"public_id": f"plan_copy{n:017d}", "order_reference": f"c{n}"}
        )
        for n in range(count)
    )
    fields = [f.attname for f in Installment._meta.concrete_fields if f.attname != "id"]
    rows = []
    for copy_pk in PaymentPlan.objects.exclude(pk=plan.pk).values_list("pk", flat=True):
        for installment in plan.installments.all():
            row = Installment(**{name: getattr(installment, name) for name in fields})
            row.plan_id, row.public_id = copy_pk, f"inst_{copy_pk}_{row.sequence}"
            rows.append(row)
    Installment.objects.bulk_create(rows, batch_size=2_000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE installments_installment")
        cursor.execute("ANALYZE installments_paymentplan")


def explained(queryset) -> str:
    return (
        queryset.select_for_update(skip_locked=True, of=("self",))
        .order_by("next_attempt_at", "id")[:500]
        .explain()
    )


@pytest.mark.django_db
def test_the_claim_of_one_plan_reads_that_plans_rows_only(plan_active):
    many_plans_like(plan_active.plan, 1_000)
    cutoff = timezone.now() + timedelta(days=400)

    with transaction.atomic():
        scoped = explained(claims.due(cutoff, plan_pk=plan_active.plan.pk))
        unscoped = explained(claims.due(cutoff, livemode=True))

    # The plan's few rows by its index, then sorted; the schedule's pass keeps
    # reading the partial index in order, without sorting.
    assert "Index Cond: (plan_id = " in scoped, scoped
    assert "installment_claimable" not in scoped, scoped
    assert "installment_claimable" in unscoped and "Sort" not in unscoped, unscoped
