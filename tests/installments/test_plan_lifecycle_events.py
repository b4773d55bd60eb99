"""`payment_plan.completed` and `payment_plan.defaulted`: emitted through the
outbox in the transaction that completes or defaults the plan, once per plan,
with the plan's money at that moment (DESIGN section 14)."""

from datetime import timedelta

import pytest

from installments.plans.models import PaymentPlan
from webhooks.models import Delivery, Event

from ..checkout.conftest import CARD_POOR
from .conftest import check_ledger, collect, installments_of, make_active_plan
from .failed_collections import failures, only_card

pytestmark = pytest.mark.django_db


def lifecycle(plan, event_type: str) -> list[dict]:
    return [
        event.data
        for event in Event.objects.filter(
            merchant=plan.merchant, event_type=event_type
        ).order_by("id")
    ]


def test_the_engine_completing_a_plan_announces_it_once(plan_active):
    plan = plan_active.plan
    rows = installments_of(plan)
    for row in rows:
        collect(row.due_date)

    plan.refresh_from_db()
    assert plan.status == PaymentPlan.Status.COMPLETED
    expected = {
        "resourceType": "payment_plan",
        "resourceId": plan.public_id,
        "orderReference": plan.order_reference,
        "amountPaid": plan.total_amount,
        "amountRefunded": 0,
        "amountRefundPending": 0,
        "amountRemaining": 0,
    }
    assert lifecycle(plan, "payment_plan.completed") == [expected]
    # The engine runs again, later: nothing is announced twice.
    collect(rows[-1].due_date + timedelta(days=30))
    assert lifecycle(plan, "payment_plan.completed") == [expected]
    event = Event.objects.get(event_type="payment_plan.completed")
    assert Delivery.objects.filter(event=event).count() == 1
    assert "clean" in check_ledger()


def test_the_deposit_does_not_complete_a_plan_with_installments_left(plan_active):
    assert lifecycle(plan_active.plan, "payment_plan.completed") == []


def test_a_default_is_announced_once_even_when_the_engine_runs_again(db):
    setup = make_active_plan()
    only_card(setup, CARD_POOR)
    plan = setup.plan
    first, second, third = installments_of(plan)
    due = first.due_date
    for pass_date in (due, due + timedelta(days=1), due + timedelta(days=3)):
        collect(pass_date)
    assert lifecycle(plan, "payment_plan.defaulted") == []

    collect(due + timedelta(days=7))
    for later in (due + timedelta(days=7), due + timedelta(days=8)):
        collect(later)
    collect(third.due_date + timedelta(days=30))

    plan.refresh_from_db()
    assert plan.status == PaymentPlan.Status.DEFAULTED
    assert lifecycle(plan, "payment_plan.defaulted") == [
        {
            "resourceType": "payment_plan",
            "resourceId": plan.public_id,
            "orderReference": plan.order_reference,
            "amountPaid": plan.deposit_amount,
            "amountRefunded": 0,
            "amountRefundPending": 0,
            "amountRemaining": plan.total_amount - plan.deposit_amount,
        }
    ]
    assert len(failures(plan)) == 4
    assert lifecycle(plan, "payment_plan.completed") == []
    assert "clean" in check_ledger()


def test_a_default_after_an_installment_was_paid_counts_it_in_amount_paid(
    plan_active,
):
    plan = plan_active.plan
    first, second, _ = installments_of(plan)
    collect(first.due_date)
    only_card(plan_active, CARD_POOR)
    due = second.due_date
    for pass_date in (due, *(due + timedelta(days=d) for d in (1, 3, 7))):
        collect(pass_date)

    [defaulted] = lifecycle(plan, "payment_plan.defaulted")
    assert defaulted["amountPaid"] == plan.deposit_amount + first.amount
    assert defaulted["amountRemaining"] == (
        plan.total_amount - plan.deposit_amount - first.amount
    )
