"""Records retention (DESIGN 18): the daily purge deletes a plan's records once
the plan ended more than RECORDS_RETENTION_YEARS ago, and nothing younger."""

import uuid
from datetime import UTC, datetime, time, timedelta
from io import StringIO

import pytest
import time_machine
from django.apps import apps
from django.core.management import call_command
from django.db.models import ProtectedError
from django.utils.module_loading import import_string
from django_q.models import Schedule
from rest_framework.test import APIClient

from config.schedules import declared
from installments.agreements.models import Agreement
from installments.notifications.models import Message
from installments.notifications.tasks import send_collection_receipts
from installments.plans.models import PaymentPlan
from installments.reschedules.models import Reschedule
from installments.retention import steps
from installments.retention.services import records_purge
from payments.customers.models import Customer, SignInCode
from payments.ledger.balances import balances_by_account, balances_checkpoint
from payments.ledger.models import WALLET_PREFIX, LedgerLine, LedgerTransaction
from webhooks.models import Event

from ..checkout.conftest import add_card, complete, open_session, register
from ..conftest import make_merchant_with_key
from ..factories import CustomerFactory
from .conftest import (
    PlanSetup,
    cancel,
    check_ledger,
    refund,
    sandbox_refunds_settle,
)

T0 = datetime(2020, 3, 2, 9, 0, tzinfo=UTC)
SIX_YEARS_LATER = datetime(2026, 3, 2, 9, 1, tzinfo=UTC)


def move(setup: PlanSetup, installment, due_date):
    """The plan's merchant (its API key) moves the installment's due date."""
    return APIClient(
        headers={"Authorization": setup.owner.headers["HTTP_AUTHORIZATION"]}
    ).post(
        f"{setup.url}/installments/{installment.public_id}/reschedule",
        {"due_date": str(due_date)},
        format="json",
    )


def plan_of(owner, shopper, card, order: str) -> PlanSetup:
    token = open_session(owner, order_reference=order)
    response = complete(shopper, token, card)
    assert response.status_code == 201, response.content
    plan = PaymentPlan.objects.get(public_id=response.json()["data"]["id"])
    return PlanSetup(owner=owner, shopper=shopper, plan=plan)


def records_of(setup: PlanSetup) -> dict:
    """What is held about one plan, counted by what it says (its order
    reference, its id) as well as by key."""
    plan, order = setup.plan, setup.plan.order_reference
    session = apps.get_model("checkout.CheckoutSession")
    return {
        "plan": PaymentPlan.objects.filter(pk=plan.pk).count(),
        "installments": plan.installments.count(),
        "deposit attempts": plan.deposit_attempts.count(),
        "refunds": plan.refunds.count(),
        "checkout session": session.objects.filter(plan=plan).count(),
        "messages": Message.objects.filter(body__contains=order).count(),
        "agreement": Agreement.objects.filter(plan=plan).count(),
        "reschedules": Reschedule.objects.filter(plan=plan).count(),
        "events": Event.objects.filter(body__contains=plan.public_id).count(),
    }


@pytest.fixture
def plans(db):
    """Ada: a plan refunded in part and cancelled at T0, one cancelled a day
    later, one active; Bola (another customer of the same shop): an active
    plan."""
    with time_machine.travel(T0, tick=False):
        owner = make_merchant_with_key()
        ada = register("ada@mail.example.com")
        card = add_card(ada)
        old = plan_of(owner, ada, card, "ORD-OLD")
        younger = plan_of(owner, ada, card, "ORD-YOUNGER")
        active = plan_of(owner, ada, card, "ORD-ACTIVE")
        bola = register("bola@mail.example.com")
        other = plan_of(owner, bola, add_card(bola), "ORD-BOLA")
        assert refund(old, 10_000).status_code == 201
        # The merchant moves a date (its notice is named by the reschedule).
        second = old.plan.installments.get(sequence=2)
        assert move(old, second, second.due_date + timedelta(days=7)).status_code == 200
        sandbox_refunds_settle()
        send_collection_receipts()
        assert cancel(old).status_code == 200
    with time_machine.travel(T0 + timedelta(days=1), tick=False):
        assert cancel(younger).status_code == 200
        balances_checkpoint()
    return {"old": old, "younger": younger, "active": active, "other": other}


def test_purge_removes_the_plan_past_the_period_and_nothing_younger(plans):
    before = {name: records_of(setup) for name, setup in plans.items()}
    assert before["old"]["messages"] and before["old"]["events"]
    assert before["old"]["checkout session"] == before["old"]["refunds"] == 1
    assert before["old"]["agreement"] == before["old"]["reschedules"] == 1
    assert Message.objects.filter(kind=Message.Kind.SCHEDULE_CHANGED).exists()

    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        summary = records_purge()

    assert summary.plans == 1
    assert set(records_of(plans["old"]).values()) == {0}
    for name in ("younger", "active", "other"):
        assert records_of(plans[name]) == before[name], name
    # Ada still has plans: her row stays.
    assert Customer.objects.filter(pk=plans["old"].plan.customer_id).exists()


def test_the_merchants_messages_about_the_plan_go_too(plans):
    def default_notice(setup: PlanSetup) -> Message:
        installment = setup.plan.installments.get(sequence=1)
        return Message.objects.create(
            kind=Message.Kind.PLAN_DEFAULTED_MERCHANT,
            subject=f"{installment.public_id}_a4",
            channel=Message.Channel.EMAIL,
            merchant=setup.owner.merchant,
            recipient=setup.owner.merchant.email,
            body=f"Payment plan {setup.plan.public_id} defaulted",
            claim=uuid.uuid4(),
            created_at=T0,
        )

    old, active = default_notice(plans["old"]), default_notice(plans["active"])

    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        records_purge()

    assert list(Message.objects.filter(pk__in=[old.pk, active.pk])) == [active]


def test_a_plan_that_ended_a_day_short_of_the_period_stays(plans):
    with time_machine.travel(T0 + timedelta(days=1) + timedelta(days=365 * 6)):
        # 2026-03-01: six years after the younger plan's end is 2026-03-03.
        records_purge()

    assert PaymentPlan.objects.filter(pk=plans["younger"].plan.pk).exists()


def test_a_refund_after_the_end_restarts_the_period(plans):
    with time_machine.travel(T0 + timedelta(days=2), tick=False):
        assert refund(plans["old"], 5_000).status_code == 201
        sandbox_refunds_settle()
    assert not plans["old"].plan.refunds.filter(status="pending").exists()

    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        records_purge()

    assert PaymentPlan.objects.filter(pk=plans["old"].plan.pk).exists()


def test_an_installment_moved_after_the_end_restarts_the_period(plans):
    old = plans["old"].plan
    moved = T0 + timedelta(days=2)
    old.installments.filter(sequence=1).update(status_changed_at=moved)

    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        records_purge()

    assert PaymentPlan.objects.filter(pk=old.pk).exists()


@pytest.mark.parametrize(
    ("status", "stamp"),
    [
        ("completed", "completed_at"),
        ("defaulted", "defaulted_at"),
        ("cancelled", "cancelled_at"),
        ("pending", None),
    ],
)
def test_each_way_a_plan_ends_starts_the_period(plans, status, stamp):
    """The active plan, set as having ended that way at T0 (a pending plan:
    last changed at T0), goes; the same a day short of the period stays."""
    rows = PaymentPlan.objects.filter(pk=plans["active"].plan.pk)
    rows.update(status=status, updated_at=T0, **({stamp: T0} if stamp else {}))

    with time_machine.travel(SIX_YEARS_LATER - timedelta(days=1), tick=False):
        records_purge()
    assert rows.exists()
    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        records_purge()
    assert not rows.exists()


@pytest.mark.parametrize(
    "still_open",
    [
        lambda plan: plan.refunds.update(status="pending"),
        lambda plan: plan.installments.filter(sequence=1).update(status="processing"),
        lambda plan: plan.deposit_attempts.update(status="processing"),
    ],
    ids=["refund pending", "installment charging", "deposit charging"],
)
def test_a_plan_with_something_open_waits(plans, still_open):
    still_open(plans["old"].plan)

    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        records_purge()

    assert PaymentPlan.objects.filter(pk=plans["old"].plan.pk).exists()


def test_the_ledger_stays_balanced_and_wallets_unchanged(plans):
    wallets = balances_by_account(WALLET_PREFIX)
    lines = LedgerLine.objects.count()

    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        records_purge()

    assert balances_by_account(WALLET_PREFIX) == wallets
    assert LedgerLine.objects.count() == lines
    check_ledger()


def test_a_second_run_deletes_nothing(plans):
    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        records_purge()
        summary = records_purge()

    assert (summary.plans, summary.customers, sum(summary.rows.values())) == (0, 0, 0)
    assert summary.line() == "Nothing past the records retention period."


def test_a_failed_batch_deletes_nothing_and_a_rerun_finishes(plans, monkeypatch):
    broken = [
        steps.Step(step.model, lambda batch: 1 / 0)
        if step.model == "installments.Installment"
        else step
        for step in steps.PLAN_STEPS
    ]
    monkeypatch.setattr("installments.retention.services.PLAN_STEPS", broken)
    before = records_of(plans["old"])

    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        with pytest.raises(ZeroDivisionError):
            records_purge()
        assert records_of(plans["old"]) == before
        monkeypatch.undo()
        assert records_purge().plans == 1

    assert set(records_of(plans["old"]).values()) == {0}


def test_the_command_prints_what_it_purged(plans):
    out = StringIO()
    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        call_command("purge_records", stdout=out)

    assert out.getvalue().startswith("Purged 1 plan(s) and 0 customer(s)")


def test_the_purge_is_a_daily_schedule_running_the_same_purge(plans):
    [spec] = [s for s in declared() if s.name == "installments-purge-records"]
    assert (spec.schedule_type, spec.at) == (Schedule.DAILY, time(3, 30))
    assert spec.func == "installments.tasks.purge_records"

    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        line = import_string(spec.func)()

    assert line.startswith("Purged 1 plan(s)")
    assert not PaymentPlan.objects.filter(pk=plans["old"].plan.pk).exists()


def code_for(customer, at: datetime) -> SignInCode:
    return SignInCode.objects.create(
        customer=customer,
        purpose="sign_in",
        code_hash="x" * 64,
        created_at=at,
        expires_at=at + timedelta(minutes=10),
        ended_at=at,
    )


@pytest.mark.django_db
def test_a_customer_with_nothing_left_and_no_activity_is_deleted():
    with time_machine.travel(T0, tick=False):
        idle, signed_in_lately, recent = CustomerFactory.create_batch(3)
        code_for(idle, T0)
    with time_machine.travel(T0 + timedelta(days=2), tick=False):
        recent.save()
    code_for(signed_in_lately, SIX_YEARS_LATER - timedelta(days=30))

    with time_machine.travel(SIX_YEARS_LATER, tick=False):
        summary = records_purge()

    assert summary.customers == 1
    assert not Customer.objects.filter(pk=idle.pk).exists()
    assert not SignInCode.objects.filter(customer=idle.pk).exists()
    assert Customer.objects.filter(pk__in=[signed_in_lately.pk, recent.pk]).count() == 2


def test_a_customer_named_by_kept_ledger_rows_stays(plans):
    """Once all of Ada's plans are past the period her row is still named by
    the ledger's collections, which are kept: it stays."""
    with time_machine.travel(T0 + timedelta(days=1), tick=False):
        assert cancel(plans["active"]).status_code == 200
    ada = plans["old"].plan.customer_id

    with time_machine.travel(SIX_YEARS_LATER + timedelta(days=2), tick=False):
        summary = records_purge()

    assert summary.plans == 3
    assert not PaymentPlan.objects.filter(customer_id=ada).exists()
    assert LedgerTransaction.objects.filter(customer_id=ada).exists()
    assert Customer.objects.filter(pk=ada).exists()
    check_ledger()


def test_append_only_rows_refuse_every_delete_but_the_purge(plans):
    lines = LedgerLine.objects.filter(transaction__merchant=plans["old"].owner.merchant)
    with pytest.raises(ValueError, match="append-only"):
        lines.delete()
    with pytest.raises(ValueError, match="append-only"):
        LedgerTransaction.objects.all().delete()
    with pytest.raises(ValueError, match="append-only"):
        Reschedule.objects.all().delete()
    assert lines.exists()


def test_every_row_pointing_to_a_plan_has_a_step():
    """A new model pointing to a plan (or to its rows) must be purged first;
    this lists them so that a missing step fails here, not in production."""
    listed = {step.model for step in steps.PLAN_STEPS}
    plan = PaymentPlan
    owners = {plan}
    found = set()
    while owners:
        target = owners.pop()
        for model in apps.get_models():
            for field in model._meta.concrete_fields:
                if field.is_relation and field.related_model is target:
                    label = model._meta.label
                    if label not in found:
                        found.add(label)
                        owners.add(model)
    assert found - listed == set()


def test_protected_rows_not_listed_stop_the_batch(plans):
    """A plan whose rows were not deleted first cannot go (a model missing
    from the steps stops the batch rather than leaving rows behind)."""
    plans_step = steps.PLAN_STEPS[-1]
    assert plans_step.model == "installments.PaymentPlan"
    batch = steps.Batch([plans["old"].plan.pk], [], [], [])
    with pytest.raises(ProtectedError):
        plans_step.run(batch)
    assert PaymentPlan.objects.filter(pk=plans["old"].plan.pk).exists()
