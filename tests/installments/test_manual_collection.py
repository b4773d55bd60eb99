"""Manual collection (DESIGN section 17): a plan finished at checkout with the
deposit paid by transfer and no card or mandate (the merchant's
`manual_collection` on) is never charged by the engine while its customer has
no method; on the due date and on each retry day the customer is told the
installment is due instead (e-mail and SMS, once per attempt), the attempts
advance with the soft reason `not_paid`, and the plan defaults after the last
exactly as any other. A customer who adds a card is charged as on any plan."""

from datetime import datetime, time, timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from checkout.services import deposit_offline_start
from installments.notifications.models import Message
from installments.plans.models import PaymentPlan
from payments.gateway.services.sandbox_offline import sandbox_offline_complete
from payments.models import SandboxTransaction

from ..checkout.conftest import add_card, open_session, register
from ..conftest import make_merchant_with_key
from .conftest import check_ledger, collect, event_data, installments_of


def _at(day, hour=10, minute=5):
    return timezone.make_aware(datetime.combine(day, time(hour, minute)))


@pytest.fixture
def manual_plan(db):
    owner = make_merchant_with_key(manual_collection=True)
    shopper = register("ada@mail.example.com")
    attempt = deposit_offline_start(
        token=open_session(owner),
        customer=shopper.customer,
        schedule_type="monthly",
        installment_count=3,
        channel="bank_transfer",
    )
    sandbox_offline_complete(reference=attempt.reference)
    plan = PaymentPlan.objects.get()
    assert plan.status == "active" and plan.collection == "manual"
    return owner, shopper, plan


def _charges() -> int:
    return SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE
    ).count()


def _due_notices(installment) -> list[Message]:
    return list(
        Message.objects.filter(
            kind=Message.Kind.PAYMENT_DUE, subject__startswith=installment.public_id
        ).order_by("id")
    )


def test_the_engine_tells_the_customer_instead_of_charging_then_defaults(
    manual_plan,
):
    owner, _, plan = manual_plan
    first = installments_of(plan)[0]
    due = first.due_date
    # The due date (its first pass at the start of the day), then the retry
    # days: 10:00 Lagos on the due date + 1 and + 3.
    for attempt, when in enumerate(
        (_at(due, 0), _at(due + timedelta(days=1)), _at(due + timedelta(days=3))),
        start=1,
    ):
        with time_machine.travel(when):
            summary = collect()
        first.refresh_from_db()
        assert summary.tally.failed == 1 and summary.tally.defaulted == 0
        assert first.status == "failed" and first.attempts == attempt
        assert first.last_failure_reason == "not_paid"
        notices = _due_notices(first)
        assert {m.subject for m in notices} == {
            f"{first.public_id}_a{n}" for n in range(1, attempt + 1)
        }
    assert _charges() == 0
    # Once per attempt: a second pass the same day sends nothing more.
    with time_machine.travel(_at(due + timedelta(days=3), 11)):
        collect()
    assert len({m.subject for m in _due_notices(first)}) == 3
    email = next(m for m in _due_notices(first) if m.channel == "email")
    # The pay link of the plan goes in when the message is sent; the
    # recorded body holds only its mark, never a working link.
    assert "{pay_link}" in email.body
    assert email.pay_link is not None and email.pay_link.plan_id == plan.pk
    assert "your plan will be in default" in email.body

    with time_machine.travel(_at(due + timedelta(days=7))):
        summary = collect()

    first.refresh_from_db()
    plan.refresh_from_db()
    assert summary.tally.defaulted == 1
    assert first.status == "defaulted" and plan.status == "defaulted"
    assert _charges() == 0
    failed = event_data(owner.merchant, "payment.failed")
    assert [e["reason"] for e in failed] == ["not_paid"] * 4
    assert all(e["retryable"] for e in failed)
    assert len(event_data(owner.merchant, "payment_plan.defaulted")) == 1
    assert Message.objects.filter(kind=Message.Kind.PLAN_DEFAULTED).exists()
    assert Message.objects.filter(kind=Message.Kind.PLAN_DEFAULTED_MERCHANT).exists()
    assert "clean" in check_ledger()


def test_a_manual_plan_whose_customer_adds_a_card_is_charged(manual_plan):
    _, shopper, plan = manual_plan
    add_card(shopper)
    first = installments_of(plan)[0]

    with time_machine.travel(_at(first.due_date, 0)):
        summary = collect()

    first.refresh_from_db()
    assert summary.tally.paid == 1 and first.status == "paid"
    assert not _due_notices(first)
    assert "clean" in check_ledger()


def test_a_plan_created_before_the_merchant_turned_it_off_stays_manual(
    manual_plan,
):
    owner, _, plan = manual_plan
    owner.merchant.manual_collection = False
    owner.merchant.save(update_fields=["manual_collection"])
    first = installments_of(plan)[0]

    with time_machine.travel(_at(first.due_date, 0)):
        collect()

    first.refresh_from_db()
    assert first.last_failure_reason == "not_paid" and first.status == "failed"
    response = owner_get(owner, plan)
    assert response["collection"] == "manual"


def owner_get(owner, plan) -> dict:
    answer = APIClient().get(f"/api/v1/payment-plans/{plan.public_id}", **owner.headers)
    assert answer.status_code == 200, answer.content
    return answer.json()["data"]


def test_the_dashboard_shows_which_plans_are_manual(manual_plan, dashboard_for):
    owner, _, plan = manual_plan
    browser = dashboard_for(owner.merchant)

    listing = browser.get("/dashboard/plans/").content.decode()
    page = browser.get(f"/dashboard/plans/{plan.public_id}/").content.decode()

    assert 'data-testid="plan-manual"' in listing
    assert "Manual" in page and 'data-testid="plan-collection"' in page
