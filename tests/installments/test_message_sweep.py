"""Reminders and receipts are sent at least once whatever happens to the task
that sends them (issue 25 item 2; docs/operations.md, "Customer messages"):
a message its sender left unrecorded is taken again by the sweep once the
sender's lease ran out; a message recorded as sent is never sent again; a
refund's receipt is recorded in the refund's transaction, so a lost task loses
nothing; a provider that could not be reached is tried again, a refusal is
not. /metrics shows what waits and what is stuck.

The plan of `plan_active` has its deposit collected: one receipt to send."""

import smtplib
from datetime import timedelta

import pytest
from django.core import mail
from django.db import transaction
from django.utils import timezone

from config.schedules import declared
from installments.notifications import sending, services, tasks
from installments.notifications.models import Message

from ..metrics import scrape, value
from .receipts import PHONE, refund, with_phone

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("metrics_token")]

LEASE = timedelta(seconds=300)  # MESSAGE_LEASE_SECONDS, the default


def sweep() -> str:
    return tasks.send_due_messages()


def receipts_sent() -> list[str]:
    return [m.subject for m in mail.outbox]


def sender_dies_after_its_claim(monkeypatch):
    """The sending task is killed after its claim committed, before it sent."""
    monkeypatch.setattr(services, "messages_deliver", lambda claimed: services.Tally())


def test_a_receipt_whose_sender_died_is_sent_by_the_sweep_after_its_lease(
    plan_active, monkeypatch, time_machine
):
    time_machine.move_to("2026-03-02 10:00:00+01:00", tick=False)
    with monkeypatch.context() as patch:
        sender_dies_after_its_claim(patch)
        tasks.send_collection_receipts()
    (row,) = Message.objects.all()
    assert (row.status, row.attempts) == ("sending", 1)

    early = sweep()  # the sender may still be at work: its lease holds
    time_machine.move_to(timezone.now() + LEASE)
    late = sweep()
    again = sweep()

    assert early == "0 sent, 0 failed"
    assert late == "1 sent, 0 failed"
    assert again == "0 sent, 0 failed"
    (email,) = mail.outbox
    assert email.subject == "Payment of NGN 750.00 received for order ORD-1001"
    row.refresh_from_db()
    assert (row.status, row.attempts, row.lease_expires_at) == ("sent", 2, None)


def test_a_message_recorded_as_sent_is_never_sent_again(plan_active, time_machine):
    tasks.send_collection_receipts()
    time_machine.move_to(timezone.now() + 10 * LEASE)

    assert sweep() == "0 sent, 0 failed"
    assert tasks.send_collection_receipts() == "0 sent, 0 failed"
    assert len(mail.outbox) == 1


def test_a_refund_receipt_is_recorded_with_the_refund_and_survives_a_lost_task(
    plan_active, committed, sms_outbox, monkeypatch
):
    """The broker is down when the refund commits: its task is never queued
    (config/api/queue.py logs that); the sweep sends the receipt."""
    with_phone(plan_active)

    def broker_down(*args, **kwargs):
        raise ConnectionError("Redis is down")

    monkeypatch.setattr("config.api.queue.async_task", broker_down)
    with committed():
        services.refund_receipt_send(refund(plan_active.plan))
    recorded = sorted(Message.objects.values_list("channel", "status"))
    sent_before = len(mail.outbox) + len(sms_outbox)
    monkeypatch.undo()

    swept = sweep()

    assert recorded == [("email", "sending"), ("sms", "sending")]
    assert sent_before == 0
    assert swept == "2 sent, 0 failed"
    (email,) = mail.outbox
    assert email.subject == "Refund of NGN 600.00 for order ORD-1001"
    (sms,) = sms_outbox
    assert sms.to == PHONE and "rf_test0001" in sms.body
    assert sweep() == "0 sent, 0 failed"


def test_a_refund_receipt_rolled_back_with_its_refund_is_never_sent(plan_active):
    with pytest.raises(RuntimeError), transaction.atomic():
        services.refund_receipt_send(refund(plan_active.plan))
        raise RuntimeError("the refund failed after all")

    assert sweep() == "0 sent, 0 failed"
    assert not Message.objects.exists()
    assert mail.outbox == []


class Unreachable:
    """An SMTP connection to a server that refuses connections."""

    def open(self):
        raise ConnectionRefusedError(111, "Connection refused")

    def close(self):
        pass


def test_an_unreachable_mail_server_is_tried_again_by_the_sweep(
    plan_active, monkeypatch, time_machine
):
    time_machine.move_to("2026-03-02 10:00:00+01:00", tick=False)
    with monkeypatch.context() as patch:
        patch.setattr(
            "installments.notifications.emails.get_connection",
            lambda **kwargs: Unreachable(),
        )
        first = tasks.send_collection_receipts()
    row = Message.objects.get()
    waiting = (row.status, row.error)

    time_machine.move_to(timezone.now() + LEASE)
    second = sweep()

    assert first == "0 sent, 1 failed"
    assert waiting == (
        "sending",
        "ConnectionRefusedError: [Errno 111] Connection refused",
    )
    assert second == "1 sent, 0 failed"
    assert len(mail.outbox) == 1
    row.refresh_from_db()
    assert (row.status, row.error, row.attempts) == ("sent", "", 2)


def test_a_refused_message_is_failed_and_not_sent_again(
    plan_active, monkeypatch, time_machine
):
    """The server answered no: sending it again would be refused again (or,
    after an unclear answer, might send it twice)."""

    def refuse(self, messages):
        raise smtplib.SMTPRecipientsRefused({"ada@mail.example.com": (550, b"no")})

    with monkeypatch.context() as patch:
        patch.setattr(
            "django.core.mail.backends.locmem.EmailBackend.send_messages", refuse
        )
        tasks.send_collection_receipts()
    time_machine.move_to(timezone.now() + 10 * LEASE)

    assert sweep() == "0 sent, 0 failed"
    row = Message.objects.get()
    assert row.status == "failed"
    assert "SMTPRecipientsRefused" in row.error
    assert mail.outbox == []


def test_the_sweep_gives_up_on_a_message_whose_senders_keep_dying(
    plan_active, monkeypatch, time_machine
):
    time_machine.move_to("2026-03-02 10:00:00+01:00", tick=False)
    sender_dies_after_its_claim(monkeypatch)
    tasks.send_collection_receipts()
    for _ in range(sending.MAX_ATTEMPTS):
        time_machine.move_to(timezone.now() + LEASE)
        sweep()

    row = Message.objects.get()
    assert row.attempts == sending.MAX_ATTEMPTS
    assert row.status == "failed"
    assert row.error == (
        "Not recorded after 5 tries: it may or may not have been sent."
    )
    assert mail.outbox == []


def test_the_sweep_gives_up_on_a_message_two_days_late(
    plan_active, monkeypatch, time_machine
):
    time_machine.move_to("2026-03-02 10:00:00+01:00", tick=False)
    with monkeypatch.context() as patch:
        sender_dies_after_its_claim(patch)
        tasks.send_collection_receipts()
    time_machine.move_to(timezone.now() + timedelta(hours=48, seconds=1))

    assert sweep() == "0 sent, 0 failed"
    row = Message.objects.get()
    assert (row.status, row.error) == (
        "failed",
        "Not sent within 48 hours: too late to send.",
    )
    assert mail.outbox == []


def test_each_email_carries_our_message_id_the_same_on_every_try(
    plan_active, monkeypatch, time_machine
):
    with monkeypatch.context() as patch:
        sender_dies_after_its_claim(patch)
        tasks.send_collection_receipts()
    row = Message.objects.get()
    time_machine.move_to(timezone.now() + LEASE)
    sweep()

    (email,) = mail.outbox
    assert email.message()["Message-ID"] == f"<message-{row.pk}@installments.ng>"


def test_the_sweep_runs_every_minute():
    [spec] = [s for s in declared() if s.name == "installments-send-due-messages"]

    assert spec.func == "installments.notifications.tasks.send_due_messages"
    assert (spec.schedule_type, spec.minutes) == ("I", 1)


def test_metrics_show_messages_waiting_and_stuck(
    plan_active,
    monkeypatch,
    time_machine,
    metrics_token,  # noqa: F811
):
    time_machine.move_to("2026-03-02 10:00:00+01:00", tick=False)
    kind = "receipt_collection"
    with monkeypatch.context() as patch:
        sender_dies_after_its_claim(patch)
        tasks.send_collection_receipts()
    held = scrape()
    time_machine.move_to(timezone.now() + LEASE + timedelta(minutes=5, seconds=1))
    stuck = scrape()
    sweep()
    sent = scrape()

    assert value(held, "installments_messages_waiting", kind=kind) == 1
    assert value(held, "installments_messages_stuck", kind=kind) == 0
    assert value(stuck, "installments_messages_waiting", kind=kind) == 0
    assert value(stuck, "installments_messages_stuck", kind=kind) == 1
    assert value(stuck, "installments_messages_oldest_waiting_seconds") == 601
    assert value(sent, "installments_messages_waiting", kind=kind) == 0
    assert value(sent, "installments_messages_stuck", kind=kind) == 0
    assert value(sent, "installments_messages_oldest_waiting_seconds") == 0
