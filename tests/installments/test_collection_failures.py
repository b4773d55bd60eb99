"""Failed collections: `payment.failed` with the reason, retries at 10:00 Lagos on
the due date + 1, 3 and 7 days, then `defaulted`; the customer's other methods
are tried before an attempt fails; one bad installment never stops a batch."""

from datetime import datetime, time, timedelta

import pytest
from django.core import mail
from django.utils import timezone

from installments.collection import charging, outcomes
from installments.plans.models import Installment, PaymentPlan
from payments.gateway.processors import get_processor
from payments.models import Customer, PaymentMethod
from webhooks.models import Event

from ..checkout.conftest import CARD_OK, CARD_POOR, add_card
from .conftest import (
    charges_for,
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
)
from .failed_collections import delete, failures, make_default, methods_of, only_card

pytestmark = pytest.mark.django_db


def at_ten(day) -> datetime:
    return timezone.make_aware(datetime.combine(day, time(10, 0)))


@pytest.fixture
def poor_plan(db):
    """An active plan whose customer's only method now lacks funds."""
    setup = make_active_plan()
    only_card(setup, CARD_POOR)
    return setup


def test_a_failing_card_fails_with_insufficient_funds_and_retries_the_next_day(
    poor_plan, committed
):
    plan = poor_plan.plan
    first = installments_of(plan)[0]

    with committed():
        summary = collect(first.due_date)

    assert (
        summary.claimed,
        summary.resumed,
        summary.tally.paid,
        summary.tally.failed,
        summary.tally.defaulted,
    ) == (1, 0, 0, 1, 0)
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("failed", 1)
    assert first.last_failure_reason == "insufficient_funds"
    assert first.next_attempt_at == at_ten(first.due_date + timedelta(days=1))
    assert failures(plan) == [
        {
            "resourceType": "payment_plan",
            "resourceId": plan.public_id,
            "orderReference": plan.order_reference,
            "reason": "insufficient_funds",
            "retryable": True,
            "channel": "card",
        }
    ]
    [message] = mail.outbox
    assert message.to == [plan.customer.email]
    assert "could not collect" in message.subject
    assert "not enough funds" in message.body
    assert "at 10:00" in message.body
    # The same day again: the retry is not due yet.
    assert collect(first.due_date).claimed == 0


def test_retries_follow_the_documented_days_then_the_plan_defaults(
    poor_plan, committed
):
    plan = poor_plan.plan
    first, second, third = installments_of(plan)
    due = first.due_date
    expected_retries = [
        at_ten(due + timedelta(days=1)),
        at_ten(due + timedelta(days=3)),
        at_ten(due + timedelta(days=7)),
    ]
    seen = []
    pass_dates = [due, due + timedelta(days=1), due + timedelta(days=3)]
    for attempt, pass_date in enumerate(pass_dates, start=1):
        # The day before each retry nothing happens.
        if attempt > 1:
            assert collect(pass_date - timedelta(days=1)).claimed == 0
        with committed():
            collect(pass_date)
        first.refresh_from_db()
        assert (first.status, first.attempts) == ("failed", attempt)
        seen.append(first.next_attempt_at)
    assert seen == expected_retries

    with committed():
        summary = collect(due + timedelta(days=7))

    assert (summary.tally.failed, summary.tally.defaulted) == (1, 1)
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("defaulted", 4)
    assert first.defaulted_at is not None and first.next_attempt_at is None
    plan.refresh_from_db()
    assert plan.status == PaymentPlan.Status.DEFAULTED
    assert plan.defaulted_at is not None
    # The plan's later installments are no longer collected.
    for later in (second, third):
        later.refresh_from_db()
        assert (later.status, later.next_attempt_at) == ("scheduled", None)
    assert collect(third.due_date + timedelta(days=30)).claimed == 0
    assert [f["reason"] for f in failures(plan)] == ["insufficient_funds"] * 4
    assert [c.reference for c in charges_for(first)] == [
        f"{first.public_id}_a{n}" for n in (1, 2, 3, 4)
    ]
    assert list(
        first.status_changes.values_list("from_status", "to_status", "attempt")
    ) == [
        ("scheduled", "processing", 1),
        ("processing", "failed", 1),
        ("failed", "processing", 2),
        ("processing", "failed", 2),
        ("failed", "processing", 3),
        ("processing", "failed", 3),
        ("failed", "processing", 4),
        ("processing", "failed", 4),
        ("failed", "defaulted", 4),
    ]


def test_a_default_is_emailed_to_the_customer_and_the_merchant(poor_plan, committed):
    plan = poor_plan.plan
    first = installments_of(plan)[0]
    for days in (0, 1, 3):
        collect(first.due_date + timedelta(days=days))

    with committed():
        collect(first.due_date + timedelta(days=7))

    customer_mail, merchant_mail = mail.outbox
    assert customer_mail.to == [plan.customer.email]
    assert "in default" in customer_mail.subject
    assert "after 4 attempts" in customer_mail.body
    assert merchant_mail.to == [plan.merchant.email]
    assert plan.public_id in merchant_mail.subject
    assert plan.order_reference in merchant_mail.body


def test_a_default_lowers_the_customers_score_from_their_history(poor_plan):
    plan = poor_plan.plan
    first = installments_of(plan)[0]
    collect(first.due_date)
    assert Customer.objects.get(pk=plan.customer_id).score == 500 - 40

    for days in (1, 3, 7):
        collect(first.due_date + timedelta(days=days))

    # Four failed attempts and one defaulted plan.
    assert Customer.objects.get(pk=plan.customer_id).score == 500 - 4 * 40 - 200


def test_a_second_active_method_is_tried_before_giving_up(db):
    setup = make_active_plan()
    good = methods_of(setup)[0]["id"]  # paid the deposit; now second in line
    poor = add_card(setup.shopper, CARD_POOR)
    make_default(setup, poor)
    first = installments_of(setup.plan)[0]

    summary = collect(first.due_date)

    assert (summary.tally.paid, summary.tally.failed) == (1, 0)
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 1)
    assert first.processor_reference == f"{first.public_id}_a1m2"
    charges = charges_for(first)
    assert [(c.reference, c.status) for c in charges] == [
        (f"{first.public_id}_a1", "failed"),
        (f"{first.public_id}_a1m2", "success"),
    ]
    assert charges[1].authorization.authorization_code == (
        PaymentMethod.objects.get(public_id=good).authorization_code
    )
    [paid] = Event.objects.filter(event_type="installment.paid")
    assert paid.data["processorReference"] == f"{first.public_id}_a1m2"
    assert failures(setup.plan) == []
    assert "clean" in check_ledger()


def test_when_every_method_fails_the_attempt_fails_with_the_defaults_reason(db):
    setup = make_active_plan()
    good = methods_of(setup)[0]["id"]
    poor = add_card(setup.shopper, CARD_POOR)
    make_default(setup, poor)
    # The bank withdrew the other card's authorization: its charge is refused
    # and the method is deactivated, as a revocation would.
    get_processor().revoke_authorization(
        authorization_code=PaymentMethod.objects.get(public_id=good).authorization_code
    )
    first = installments_of(setup.plan)[0]

    collect(first.due_date)

    first.refresh_from_db()
    assert (first.status, first.last_failure_reason) == ("failed", "insufficient_funds")
    assert [
        (c.reference, c.metadata["failure_reason"]) for c in charges_for(first)
    ] == [
        (f"{first.public_id}_a1", "insufficient_funds"),
        (f"{first.public_id}_a1m2", "authorization_revoked"),
    ]
    assert [f["reason"] for f in failures(setup.plan)] == ["insufficient_funds"]
    revoked = PaymentMethod.objects.get(public_id=good)
    assert revoked.status == PaymentMethod.Status.REVOKED
    # One failed attempt and one method revoked by the processor.
    assert Customer.objects.get(pk=setup.plan.customer_id).score == 500 - 40 - 30

    # The next attempt charges only the method that is left, with new references.
    collect(first.due_date + timedelta(days=1))
    assert [c.reference for c in charges_for(first)][2:] == [f"{first.public_id}_a2"]


def test_a_revoked_default_is_reported_as_authorization_revoked(db):
    setup = make_active_plan()
    [card] = methods_of(setup)
    get_processor().revoke_authorization(
        authorization_code=PaymentMethod.objects.get(
            public_id=card["id"]
        ).authorization_code
    )
    first = installments_of(setup.plan)[0]

    collect(first.due_date)

    assert [f["reason"] for f in failures(setup.plan)] == ["authorization_revoked"]
    assert methods_of(setup)[0]["is_active"] is False


def test_a_customer_without_any_method_fails_with_no_payment_method(db):
    setup = make_active_plan()
    for method in methods_of(setup):
        delete(setup, method["id"])
    first = installments_of(setup.plan)[0]

    collect(first.due_date)

    first.refresh_from_db()
    # A hard decline (DESIGN 15): the attempt failed, and with no method left
    # the installment waits for the customer to add one.
    assert (first.status, first.attempts) == ("action_required", 1)
    assert first.last_failure_reason == "no_payment_method"
    assert not charges_for(first).exists()
    assert [f["reason"] for f in failures(setup.plan)] == ["no_payment_method"]
    assert [f["retryable"] for f in failures(setup.plan)] == [False]


def test_a_failed_installment_is_paid_on_retry_once_the_customer_adds_a_card(
    poor_plan,
):
    plan = poor_plan.plan
    first = installments_of(plan)[0]
    collect(first.due_date)
    only_card(poor_plan, CARD_OK)

    collect(first.due_date + timedelta(days=1))

    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 2)
    assert first.processor_reference == f"{first.public_id}_a2"
    # One paid after a retry, one failed attempt.
    assert Customer.objects.get(pk=plan.customer_id).score == 500 + 5 - 40


def test_an_engine_that_ran_late_retries_at_most_once_a_day(poor_plan):
    plan = poor_plan.plan
    first = installments_of(plan)[0]
    late = first.due_date + timedelta(days=5)

    collect(late)

    first.refresh_from_db()
    assert first.attempts == 1
    # Due date + 1 has passed: the retry is the next day at 10:00.
    assert first.next_attempt_at == at_ten(late + timedelta(days=1))


def test_one_bad_installment_does_not_stop_the_batch(db, monkeypatch):
    good = make_active_plan(email="ada@mail.example.com")
    other = make_active_plan(email="bola@mail.example.com")
    bad = installments_of(other.plan)[0]
    real = charging._charge

    def breaks_on_one(claim, methods, *rest):
        if claim.pk == bad.pk:
            raise RuntimeError("a bug in one installment")
        return real(claim, methods, *rest)

    monkeypatch.setattr(charging, "_charge", breaks_on_one)
    first = installments_of(good.plan)[0]

    summary = collect(max(first.due_date, bad.due_date))

    assert (
        summary.claimed,
        summary.resumed,
        summary.tally.paid,
        summary.tally.failed,
        summary.tally.defaulted,
        summary.in_flight,
    ) == (2, 0, 1, 0, 0, 1)
    first.refresh_from_db()
    bad.refresh_from_db()
    assert first.status == "paid"
    assert (bad.status, bad.attempts) == ("processing", 1)


def test_a_batch_that_cannot_be_recorded_whole_is_recorded_one_by_one(db, monkeypatch):
    plans = [
        make_active_plan(email=f"shopper{n}@mail.example.com").plan for n in range(3)
    ]
    firsts = [installments_of(plan)[0] for plan in plans]
    real = outcomes._record_paid

    def refuses_batches(batch, results):
        if len(results) > 1:
            raise RuntimeError("a batch-sized statement failed")
        if results[0].claim.pk == firsts[1].pk:
            raise RuntimeError("this one row is bad")
        return real(batch, results)

    monkeypatch.setattr(outcomes, "_record_paid", refuses_batches)

    summary = collect(max(first.due_date for first in firsts))

    assert (summary.claimed, summary.resumed, summary.tally.paid) == (3, 0, 2)
    assert summary.in_flight == 1
    statuses = [Installment.objects.get(pk=first.pk).status for first in firsts]
    assert statuses == ["paid", "processing", "paid"]
