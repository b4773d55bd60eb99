"""Receipts after every successful collection (a sweep over recent ledger
collections, outside the engine) and after each processed refund
(`refund_receipt_send`), each sent once whatever reruns."""

from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.utils import timezone

from config.schedules import declared
from installments.notifications import tasks
from installments.notifications.models import Message
from installments.notifications.services import refund_receipt_send

from .conftest import collect, installments_of
from .receipts import PHONE, refund, with_phone

pytestmark = pytest.mark.django_db


def sweep() -> str:
    return tasks.send_collection_receipts()


def receipts(kind=Message.Kind.RECEIPT_COLLECTION):
    return Message.objects.filter(kind=kind)


def test_the_deposit_gets_a_receipt_once(plan_active):
    assert sweep() == "1 sent, 0 failed"
    assert sweep() == "0 sent, 0 failed"

    (email,) = mail.outbox
    plan = plan_active.plan
    assert email.subject == "Payment of NGN 750.00 received for order ORD-1001"
    assert f"for your order ORD-1001 from {plan.merchant.business_name}: " in (
        email.body
    )
    assert "the deposit." in email.body
    assert "Left to pay on your plan now: NGN 1,750.00." in email.body
    assert f"Receipt number: {plan.public_id}_d1" in email.body
    assert f"/account/plans/{plan.public_id}/" in email.body
    (row,) = receipts()
    assert (row.subject, row.channel, row.status) == (
        f"{plan.public_id}_d1",
        "email",
        "sent",
    )


def test_each_installment_collected_gets_one_receipt(plan_active, sms_outbox):
    with_phone(plan_active)
    sweep()  # the deposit's
    first, second, third = installments_of(plan_active.plan)

    collect(first.due_date)
    assert sweep() == "2 sent, 0 failed"  # e-mail and SMS
    collect(second.due_date)
    collect(third.due_date)
    assert sweep() == "4 sent, 0 failed"
    assert sweep() == "0 sent, 0 failed"

    assert len(mail.outbox) == 4
    assert "installment 3 of 3." in mail.outbox[-1].body
    assert "Your plan is now paid in full." in mail.outbox[-1].body
    assert len(sms_outbox) == 4
    assert sms_outbox[1].body.startswith("Received NGN 583.34 for ")
    assert "(installment 1 of 3). Balance now" in sms_outbox[1].body
    assert f"Receipt {first.public_id}_a1" in sms_outbox[1].body
    assert f"Receipt number: {first.public_id}_a1 (quote it if" in mail.outbox[1].body
    for text in [m.body for m in mail.outbox] + [s.body for s in sms_outbox]:
        assert "reference" not in text.lower()
    assert sorted(receipts().values_list("subject", "channel")) == sorted(
        (subject, channel)
        for subject in [f"{plan_active.plan.public_id}_d1"]
        + [i.public_id for i in (first, second, third)]
        for channel in ("email", "sms")
    )


def test_the_sweep_never_sends_receipts_for_old_collections(plan_active):
    with time_machine.travel(timezone.now() + timedelta(hours=49)):
        assert sweep() == "0 sent, 0 failed"


def test_the_engine_sends_no_receipt_itself(plan_active):
    """Receipts are the sweep's: the engine's hot path writes no message."""
    collect(installments_of(plan_active.plan)[0].due_date)

    assert not receipts().exists()
    assert [m.subject for m in mail.outbox] == []


def test_receipts_are_a_frequent_sweep():
    [spec] = [
        s for s in declared() if s.name == "installments-send-collection-receipts"
    ]

    assert spec.func == "installments.notifications.tasks.send_collection_receipts"
    assert (spec.schedule_type, spec.minutes) == ("I", 2)


def test_a_refund_gets_one_receipt_by_email_and_sms(plan_active, committed, sms_outbox):
    with_phone(plan_active)
    processed = refund(plan_active.plan, amount_returned=45_000, amount_reduced=15_000)

    with committed():
        refund_receipt_send(processed)
    with committed():
        refund_receipt_send(processed)  # processed twice (a retried event)

    (email,) = mail.outbox
    assert email.subject == "Refund of NGN 600.00 for order ORD-1001"
    assert "refunded NGN 600.00 of your order ORD-1001." in email.body
    assert "Your unpaid installments are NGN 150.00 lower." in email.body
    assert "NGN 450.00 goes back to the card or bank account" in email.body
    assert "Refund number: rf_test0001" in email.body
    (sms,) = sms_outbox
    assert sms.to == PHONE
    assert "refunded NGN 600.00 of order ORD-1001. Refund rf_test0001." in sms.body
    # Customer-facing: a number to quote, never our word "reference".
    assert "reference" not in (email.body + sms.body).lower()
    assert sorted(
        receipts(Message.Kind.RECEIPT_REFUND).values_list("channel", "status")
    ) == [
        ("email", "sent"),
        ("sms", "sent"),
    ]


def test_a_refund_without_the_split_says_both_may_happen(plan_active, committed):
    with committed():
        refund_receipt_send(refund(plan_active.plan))

    (email,) = mail.outbox
    assert "It comes off what you still owe first" in email.body


def test_a_refund_receipt_waits_for_the_callers_commit(plan_active, committed):
    with committed():
        refund_receipt_send(refund(plan_active.plan))
        assert mail.outbox == []  # not yet: still inside the transaction

    assert len(mail.outbox) == 1


def test_staff_see_each_message_read_only(admin_client, plan_active):
    sweep()
    message = Message.objects.get()

    listing = admin_client.get("/admin/installments/message/")
    page = admin_client.get(f"/admin/installments/message/{message.pk}/change/")
    deleting = admin_client.post(f"/admin/installments/message/{message.pk}/delete/")

    assert listing.status_code == 200
    assert message.subject in listing.content.decode()
    assert page.status_code == 200
    assert "Receipt number:" in page.content.decode()
    assert b'name="_save"' not in page.content
    assert deleting.status_code == 403
    assert Message.objects.filter(pk=message.pk).exists()
