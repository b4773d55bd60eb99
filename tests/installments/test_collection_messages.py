"""What a collection pass tells customers and merchants (a failed attempt, a part
collected, a default) takes the one route of every message (issue 26 item 3):
a `Message` row per channel, recorded in the pass's own transaction under a key
of its own, sent by the task queued after the commit or, when that task is
lost, by the sweep; a second pass, sweep or recording sends nothing twice."""

from datetime import timedelta

import pytest
from django.core import mail
from django.db import IntegrityError, transaction

from installments import tasks as installment_tasks
from installments.collection.claims import Claim
from installments.models import Message
from installments.notifications import services, tasks, texts

from ..checkout.conftest import CARD_POOR
from .conftest import collect, installments_of, make_active_plan
from .failed_collections import only_card
from .partial_plans import first_three_attempts, last_retry, partial_plan, refreshed
from .receipts import PHONE, with_phone

pytestmark = pytest.mark.django_db

Kind = Message.Kind


@pytest.fixture
def poor_plan(db):
    """An active plan whose customer (with a mobile number) has only a card
    that lacks funds."""
    setup = make_active_plan()
    only_card(setup, CARD_POOR)
    with_phone(setup)
    return setup


def sweep() -> str:
    return tasks.send_due_messages()


def rows(*kinds) -> list[tuple]:
    return list(
        Message.objects.filter(kind__in=kinds)
        .order_by("id")
        .values_list("kind", "subject", "channel", "recipient", "status")
    )


def broker_down(monkeypatch):
    """The task queued after the commit is never queued (Redis is down, or the
    worker died right after the commit): config/api/queue.py logs it."""

    def refuse(*args, **kwargs):
        raise ConnectionError("Redis is down")

    monkeypatch.setattr("config.api.queue.async_task", refuse)


def test_a_failed_attempt_is_recorded_with_the_pass_and_sent_after_its_commit(
    poor_plan, committed, sms_outbox
):
    plan = poor_plan.plan
    first = installments_of(plan)[0]

    with committed():
        collect(first.due_date)

    email, phone = plan.customer.email, PHONE
    subject = f"{first.public_id}_a1"
    assert rows(Kind.COLLECTION_FAILED) == [
        (Kind.COLLECTION_FAILED, subject, "email", email, "sent"),
        (Kind.COLLECTION_FAILED, subject, "sms", phone, "sent"),
    ]
    assert set(Message.objects.values_list("customer_id", "merchant_id")) == {
        (plan.customer_id, None)
    }
    [message] = mail.outbox
    assert message.to == [email]
    assert message.subject == (
        f"We could not collect your installment for order {plan.order_reference}"
    )
    assert "installment 1 of 3 (NGN 583.34)" in message.body
    assert "there were not enough funds" in message.body
    assert "at 10:00 (Lagos time)" in message.body
    [text] = sms_outbox
    assert text.to == phone
    assert text.body.startswith("Payment failed: we could not collect NGN 583.34")
    assert "insufficient funds" in text.body and "Pay now: http" in text.body


@pytest.mark.parametrize("lost", ["broker_down", "died_at_the_commit"])
def test_a_pass_whose_sending_task_is_lost_loses_no_message(
    poor_plan, committed, sms_outbox, monkeypatch, lost
):
    """Redis refuses the task queued after the commit; or the worker dies right
    after the commit, before any after-commit work runs (a test's transaction
    never commits, so the pass's on-commit work never runs)."""
    plan = poor_plan.plan
    first = installments_of(plan)[0]
    if lost == "broker_down":
        with monkeypatch.context() as patch:
            broker_down(patch)
            with committed():
                collect(first.due_date)
    else:
        collect(first.due_date)
    recorded = [row[2:] for row in rows(Kind.COLLECTION_FAILED)]
    sent_before = len(mail.outbox) + len(sms_outbox)

    swept = sweep()

    assert recorded == [
        ("email", plan.customer.email, "sending"),
        ("sms", PHONE, "sending"),
    ]
    assert sent_before == 0
    assert swept == "2 sent, 0 failed"
    assert [m.to for m in mail.outbox] == [[plan.customer.email]]
    assert [t.to for t in sms_outbox] == [PHONE]
    assert sweep() == "0 sent, 0 failed"


def test_a_second_pass_sweep_or_recording_sends_nothing_twice(
    poor_plan, committed, sms_outbox
):
    plan = poor_plan.plan
    first = installments_of(plan)[0]
    with committed():
        collect(first.due_date)
    first.refresh_from_db()  # attempt 1, as the pass recorded it
    again = texts.collection_failed(
        Claim.of(first, resumed=False),
        customer=plan.customer,
        merchant=plan.merchant,
        reason="insufficient_funds",
        when=first.next_attempt_at,
    )

    with committed():
        second_pass = collect(first.due_date)
        services.messages_send_on_commit(again, task_name="test")
    swept = sweep()

    assert second_pass.claimed == 0
    assert swept == "0 sent, 0 failed"
    assert Message.objects.count() == 2
    assert (len(mail.outbox), len(sms_outbox)) == (1, 1)


def test_a_pass_rolled_back_records_and_sends_no_message(poor_plan, monkeypatch):
    """Recorded in the pass's transaction: when its outcomes cannot be written,
    nothing tells the customer what was not recorded."""
    first = installments_of(poor_plan.plan)[0]

    def breaks(*args, **kwargs):
        raise RuntimeError("the scores could not be written")

    monkeypatch.setattr("installments.plans.scores.scores_refresh", breaks)
    summary = collect(first.due_date)

    assert summary.tally.broken == 1
    assert not Message.objects.exists()
    assert sweep() == "0 sent, 0 failed"
    assert mail.outbox == []


def test_a_default_is_recorded_for_the_customer_and_the_merchant_and_swept(
    poor_plan, committed, sms_outbox, monkeypatch
):
    plan = poor_plan.plan
    first = installments_of(plan)[0]
    for days in (0, 1, 3):
        collect(first.due_date + timedelta(days=days))
    assert sweep() == "6 sent, 0 failed"  # each retry's notice, e-mail and SMS
    mail.outbox.clear()
    sms_outbox.clear()

    with monkeypatch.context() as patch:
        broker_down(patch)
        with committed():
            collect(first.due_date + timedelta(days=7))
    waiting = [
        row[-1] for row in rows(Kind.PLAN_DEFAULTED, Kind.PLAN_DEFAULTED_MERCHANT)
    ]
    swept = sweep()

    subject = f"{first.public_id}_a4"
    customer, merchant = plan.customer.email, plan.merchant.email
    assert waiting == ["sending"] * 3
    assert swept == "3 sent, 0 failed"
    assert rows(Kind.PLAN_DEFAULTED, Kind.PLAN_DEFAULTED_MERCHANT) == [
        (Kind.PLAN_DEFAULTED, subject, "email", customer, "sent"),
        (Kind.PLAN_DEFAULTED, subject, "sms", PHONE, "sent"),
        (Kind.PLAN_DEFAULTED_MERCHANT, subject, "email", merchant, "sent"),
    ]
    to_merchant = Message.objects.get(kind=Kind.PLAN_DEFAULTED_MERCHANT)
    assert (to_merchant.customer_id, to_merchant.merchant_id) == (
        None,
        plan.merchant_id,
    )
    assert [
        s
        for (_, s, channel, _, _) in rows(Kind.COLLECTION_FAILED)
        if channel == "email"
    ] == [f"{first.public_id}_a{n}" for n in (1, 2, 3)]
    customer_mail, merchant_mail = mail.outbox
    assert customer_mail.to == [customer]
    assert "in default" in customer_mail.subject
    assert "after 4 attempts" in customer_mail.body
    assert merchant_mail.to == [merchant]
    assert merchant_mail.subject == (
        f"Payment plan {plan.public_id} (order {plan.order_reference}) defaulted"
    )
    assert f"/dashboard/plans/{plan.public_id}/" in merchant_mail.body
    [text] = sms_outbox
    assert text.to == PHONE and text.body.startswith("Plan in default: ")
    assert "after 4 attempts" in text.body
    assert sweep() == "0 sent, 0 failed"


def test_a_partial_collection_is_told_by_a_recorded_message(db, committed, sms_outbox):
    setup = partial_plan(percent=50)
    with_phone(setup)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)

    with committed():
        last_retry(first)

    first = refreshed(first)
    subject = f"{first.public_id}_a4p"
    assert first.partial_reference == subject
    assert rows(Kind.PARTIALLY_COLLECTED) == [
        (Kind.PARTIALLY_COLLECTED, subject, "email", setup.plan.customer.email, "sent"),
        (Kind.PARTIALLY_COLLECTED, subject, "sms", PHONE, "sent"),
    ]
    # The last retry told of the part collected, not of a failure or a default.
    assert not Message.objects.filter(
        kind__in=[Kind.COLLECTION_FAILED, Kind.PLAN_DEFAULTED],
        subject=f"{first.public_id}_a4",
    ).exists()
    rest = first.amount - first.amount_paid
    [email] = mail.outbox
    assert f"so we collected NGN {first.amount_paid // 100:,}." in email.body
    assert f"The rest, NGN {rest // 100:,}." in email.body
    [text] = sms_outbox
    assert text.body.startswith(
        f"Part paid: we collected NGN {first.amount_paid // 100:,}."
    )


def test_a_message_is_to_a_customer_or_to_a_merchant_never_both(plan_active):
    plan = plan_active.plan
    base = dict(
        kind=Kind.PLAN_DEFAULTED_MERCHANT,
        subject="inst_x_a4",
        channel="email",
        recipient="shop@example.com",
        body="...",
        claim="00000000-0000-0000-0000-000000000000",
    )
    for to in ({}, {"customer_id": plan.customer_id, "merchant_id": plan.merchant_id}):
        with pytest.raises(IntegrityError), transaction.atomic():
            Message.objects.create(**base, **to)


def test_collection_emails_queued_by_the_version_before_are_still_sent():
    """A worker of the version before still queues a batch's e-mails as
    (subject, body, recipient) while a deploy rolls (installments.tasks)."""
    queued = [
        ("We could not collect your installment", "Hello Ada,\n", "ada@example.com"),
        ("Payment plan plan_x defaulted", "Hello,\n", "shop@example.com"),
    ]

    assert installment_tasks.send_emails(queued) == 2

    assert [(m.subject, m.body, m.to) for m in mail.outbox] == [
        (subject, body, [to]) for subject, body, to in queued
    ]
    assert not Message.objects.exists()
