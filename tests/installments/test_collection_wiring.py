"""How the engine is wired in: the command and the schedule, the claim's index,
the score on revocation, the ledger checks registered with payments."""

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone
from rest_framework.test import APIClient

from config.models import IllegalTransition
from config.schedules import declared
from installments import tasks
from installments.collection import claims
from installments.management.commands import collect_installments
from installments.plans.models import Installment
from payments.ledger.hooks import ledger_checks
from payments.ledger.services import Collection, collections_post
from payments.models import Customer, LedgerLine, LedgerTransaction, PaymentMethod

from ..payments.conftest import signed_post
from .conftest import collect, installments_of, make_active_plan

pytestmark = pytest.mark.django_db


class Terminal(StringIO):
    def isatty(self):
        return True


# --- the command and the schedule ---------------------------------------------


def test_a_terminal_shows_a_progress_line_and_a_summary(plan_active):
    first = installments_of(plan_active.plan)[0]
    screen = Terminal()

    call_command("collect_installments", "--date", str(first.due_date), stdout=screen)

    shown = screen.getvalue()
    assert "\r  0% 0/1 claiming" in shown
    assert "\r100% 1/1 1 paid, 0 failed" in shown
    assert shown.endswith(
        f"collect_installments (due by end of {first.due_date}): 1 attempt(s) "
        f"(0 resumed): 1 paid, 0 failed (0 defaulted), 0 left in flight, 0 settled "
        f"elsewhere; 0 plan(s) completed, 0 released; {shown.split('; ')[-1]}"
    )


def command(*args: str) -> str:
    """`python manage.py collect_installments ...` into a pipe; what it printed."""
    out = StringIO()
    call_command("collect_installments", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def passes(monkeypatch) -> list:
    """The summaries of the passes the command runs, as `collect_due` returns
    them."""
    ran = []
    real = collect_installments.collect_due

    def recorded(**options):
        ran.append(real(**options))
        return ran[-1]

    monkeypatch.setattr(collect_installments, "collect_due", recorded)
    return ran


def test_a_pipe_gets_only_the_summary_line(plan_active, passes):
    first = installments_of(plan_active.plan)[0]

    output = command("--date", str(first.due_date))

    [summary] = passes
    assert summary.claimed == 1
    assert "\r" not in output
    assert output.count("\n") == 1
    assert output == (
        f"collect_installments (due by end of {first.due_date}): {summary.line()}\n"
    )


def test_without_a_date_the_line_says_due_by_now(plan_active, passes):
    first = installments_of(plan_active.plan)[0]
    Installment.objects.filter(pk=first.pk).update(
        next_attempt_at=timezone.now() - timedelta(minutes=1)
    )

    output = command()

    [summary] = passes
    assert summary.claimed == 1
    assert output == f"collect_installments (due by now): {summary.line()}\n"


@pytest.mark.parametrize("value", ["2026-13-01", "tomorrow", "01/02/2026"])
def test_a_malformed_date_is_refused(db, value):
    with pytest.raises(CommandError, match="YYYY-MM-DD"):
        call_command("collect_installments", "--date", value, stdout=StringIO())


def test_the_batch_size_must_be_positive(db):
    with pytest.raises(CommandError, match="at least 1"):
        call_command("collect_installments", "--batch-size", "0", stdout=StringIO())


def test_small_batches_collect_everything_due(db):
    plans = [make_active_plan(email=f"s{n}@mail.example.com").plan for n in range(3)]
    last = max(installments_of(plan)[-1].due_date for plan in plans)

    summary = collect(last, batch_size=2)

    assert (summary.claimed, summary.resumed, summary.tally.paid) == (9, 0, 9)
    assert summary.tally.completed == 3


def test_the_engine_is_a_five_minute_schedule():
    [spec] = [spec for spec in declared() if spec.name == "installments-collect-due"]
    assert spec.func == "installments.tasks.collect_due_installments"
    assert (spec.schedule_type, spec.minutes) == ("I", 5)


def test_the_scheduled_task_collects_what_is_due_now(plan_active):
    first = installments_of(plan_active.plan)[0]
    Installment.objects.filter(pk=first.pk).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1)
    )

    line = tasks.collect_due_installments()

    assert line.startswith("1 attempt(s) (0 resumed): 1 paid")
    first.refresh_from_db()
    assert first.status == "paid"


@pytest.mark.parametrize("side", ["live", "test"])
def test_a_task_out_of_time_hands_the_rest_to_a_continuation_of_its_side(
    plan_active, monkeypatch, side
):
    enqueued = []
    monkeypatch.setattr(tasks, "PASS_BUDGET_SECONDS", -1)
    monkeypatch.setattr(tasks, "async_task", lambda *args, **kw: enqueued.append(args))

    tasks.collect_due_installments(side)

    assert enqueued == [(tasks.COLLECT_TASK, side)]


def test_each_side_has_its_own_collection_schedule():
    from config.schedules import declared

    engine = [
        (spec.name, spec.args)
        for spec in declared()
        if spec.func == "installments.tasks.collect_due_installments"
    ]

    assert engine == [
        ("installments-collect-due", ""),
        ("installments-collect-due-test", "('test',)"),
    ]


# --- the claim's index --------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL plans")
@pytest.mark.parametrize("livemode", [True, False])
@pytest.mark.parametrize(
    ("rows", "index"),
    [
        (lambda now, side: claims.due(now, livemode=side), "installment_claimable"),
        (lambda now, side: claims.stale(now, livemode=side), "installment_in_flight"),
    ],
)
def test_each_side_claim_reads_its_partial_index_in_order_without_sorting(
    plan_active, livemode, rows, index
):
    """The side leads the engine's indexes (DESIGN section 21): each side's
    pass reads its own range in order, never the other side's rows."""
    query = (
        rows(timezone.now(), livemode)
        .select_for_update(skip_locked=True, of=("self",))
        .order_by("next_attempt_at", "id")
    )
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        plan = query.explain()

    assert index in plan
    assert "Sort" not in plan
    # The side is an index condition, not a filter on every due row.
    [scan] = [line for line in plan.splitlines() if f"using {index}" in line]
    condition = plan.splitlines()[plan.splitlines().index(scan) + 1]
    assert f"Index Cond: ((livemode = {str(livemode).lower()})" in condition


# --- the score ----------------------------------------------------------------


def test_a_processor_revocation_recomputes_the_customers_score(plan_active):
    method = PaymentMethod.objects.get(customer_id=plan_active.plan.customer_id)

    response = signed_post(
        APIClient(),
        "/api/v1/webhooks/payment-gateway",
        {
            "event": "authorization.revoked",
            "data": {"authorization_code": method.authorization_code},
        },
    )

    assert response.status_code == 200
    assert Customer.objects.get(pk=method.customer_id).score == 500 - 30


# --- the ledger checks ----------------------------------------------------------


def failing_check_ledger() -> str:
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("check_ledger", stdout=out)
    return out.getvalue()


def test_the_installment_checks_are_registered_with_payments():
    names = [check.name for check in ledger_checks()]
    assert "each paid installment has exactly one collection" in names
    assert "no collection without a paid installment or deposit" in names


def test_a_paid_installment_without_its_collection_fails_check_ledger(plan_active):
    first = installments_of(plan_active.plan)[0]
    Installment.objects.filter(pk=first.pk).update(status="paid")

    output = failing_check_ledger()

    assert f"installment {first.public_id} is paid but has no collection" in output


def test_a_collection_without_a_paid_installment_fails_check_ledger(plan_active):
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    Installment.objects.filter(pk=first.pk).update(status="failed")

    output = failing_check_ledger()

    assert (
        f"collection {first.public_id} is for an installment that is failed" in output
    )


def test_a_collection_for_the_wrong_amount_fails_check_ledger(plan_active):
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    # The database refuses an amount above the original one: change both.
    Installment.objects.filter(pk=first.pk).update(
        amount=first.amount + 1, original_amount=first.amount + 1
    )

    output = failing_check_ledger()

    assert f"installment {first.public_id} of {first.amount + 1}" in output


def test_the_database_refuses_a_second_collection_for_an_installment(plan_active):
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    plan = plan_active.plan

    with pytest.raises(IntegrityError), transaction.atomic():
        collections_post(
            [
                Collection(
                    merchant_pk=plan.merchant_id,
                    merchant_public_id=plan.merchant.public_id,
                    livemode=plan.merchant.livemode,
                    customer_pk=plan.customer_id,
                    amount=first.amount,
                    reference=first.public_id,
                    processor_reference=f"{first.public_id}_a2",
                    resource_type="installment",
                    resource_id=first.public_id,
                )
            ]
        )
    assert LedgerTransaction.objects.filter(reference=first.public_id).count() == 1
    assert (
        LedgerLine.objects.filter(transaction__reference=first.public_id).count() == 3
    )


def test_a_batch_holding_one_collection_already_posted_is_refused_whole(plan_active):
    """The batch path (several rows: COPY on PostgreSQL) refuses like the single
    insert: an IntegrityError, and none of the batch is written."""
    first, second = installments_of(plan_active.plan)[:2]
    collect(first.due_date)
    plan = plan_active.plan

    def collection(installment):
        return Collection(
            merchant_pk=plan.merchant_id,
            merchant_public_id=plan.merchant.public_id,
            livemode=plan.merchant.livemode,
            customer_pk=plan.customer_id,
            amount=installment.amount,
            reference=installment.public_id,
            processor_reference=f"{installment.public_id}_a1",
            resource_type="installment",
            resource_id=installment.public_id,
        )

    with pytest.raises(IntegrityError), transaction.atomic():
        collections_post([collection(second), collection(first)])
    assert not LedgerTransaction.objects.filter(reference=second.public_id).exists()
    assert LedgerTransaction.objects.filter(reference=first.public_id).count() == 1


# --- the state machine, set-based -------------------------------------------------


def test_a_set_based_transition_refuses_any_illegal_move(plan_active):
    rows = installments_of(plan_active.plan)

    with pytest.raises(IllegalTransition):
        Installment.bulk_transition(rows, Installment.Status.PAID)

    assert {row.status for row in installments_of(plan_active.plan)} == {"scheduled"}
