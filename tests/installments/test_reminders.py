"""Reminders before each due date (DESIGN section 14), with the clock moved by
time-machine: exactly REMINDER_DAYS_BEFORE days before, by e-mail and by SMS
when the customer added a number, recorded so that a rerun sends nothing."""

import re
import smtplib
from datetime import datetime, time, timedelta

import pytest
import responses
import time_machine
from django.core import mail
from django.core.mail.backends import locmem
from django.utils import timezone
from django_q.models import Schedule

from config.schedules import declared, next_at, sync
from installments.notifications import services, tasks
from installments.notifications.models import Message
from installments.plans.models import Installment, PaymentPlan
from payments.methods.services import payment_method_delete

from .conftest import installments_of, make_active_plan

pytestmark = pytest.mark.django_db

PHONE = "+2348031234567"


def at_nine(day):
    return timezone.make_aware(datetime.combine(day, time(9, 0)))


def run_daily(day) -> str:
    """The daily schedule's task, run at 09:00 Lagos on `day`."""
    with time_machine.travel(at_nine(day), tick=False):
        return tasks.send_reminders()


def reminders(channel=None):
    rows = Message.objects.filter(kind=Message.Kind.REMINDER)
    return rows.filter(channel=channel) if channel else rows


def with_phone(setup, phone=PHONE):
    customer = setup.shopper.customer
    customer.sms_phone = phone
    customer.save(update_fields=["sms_phone"])
    return setup


@pytest.fixture
def first(plan_active):
    return installments_of(plan_active.plan)[0]


def test_the_reminder_goes_out_exactly_three_days_before_and_on_no_other_day(first):
    due = first.due_date
    for days_before in (7, 6, 5, 4, 2, 1, 0):
        assert run_daily(due - timedelta(days=days_before)) == "0 sent, 0 failed"
    assert mail.outbox == []

    assert run_daily(due - timedelta(days=3)) == "1 sent, 0 failed"

    (email,) = mail.outbox
    assert f"due on {due:%A %d %B %Y}" in email.subject
    assert email.to == ["ada@mail.example.com"]
    (row,) = reminders()
    assert (row.subject, row.channel, row.status) == (first.public_id, "email", "sent")


def test_the_days_before_are_a_setting(first, settings):
    settings.REMINDER_DAYS_BEFORE = 5

    assert run_daily(first.due_date - timedelta(days=3)) == "0 sent, 0 failed"
    assert run_daily(first.due_date - timedelta(days=5)) == "1 sent, 0 failed"


def test_the_reminder_says_amount_date_method_and_where_to_pay_now(
    plan_active, first, sms_outbox
):
    with_phone(plan_active)

    run_daily(first.due_date - timedelta(days=3))

    plan = plan_active.plan
    link = f"http://127.0.0.1:8000/account/plans/{plan.public_id}/"
    (email,) = mail.outbox
    assert "installment 1 of 3 (NGN 583.34) of your order ORD-1001" in email.body
    assert f"is due on {first.due_date:%A %d %B %Y}" in email.body
    assert "We will charge it to Visa ending 4081 that day." in email.body
    assert link in email.body
    (sms,) = sms_outbox
    assert sms.to == PHONE
    assert sms.body.startswith(
        f"Reminder: NGN 583.34 (installment 1 of 3) for "
        f"{plan.merchant.business_name} order ORD-1001 will be charged to Visa "
        f"ending 4081 on {first.due_date:%d %b %Y}. Pay now: "
        "http://127.0.0.1:8000/pay/"
    )
    assert re.fullmatch(r".*/pay/[A-Za-z0-9_-]{32}", sms.body)


def test_a_rerun_of_the_daily_schedule_sends_nothing_twice(
    plan_active, first, sms_outbox
):
    with_phone(plan_active)
    day = first.due_date - timedelta(days=3)
    assert run_daily(day) == "2 sent, 0 failed"

    assert run_daily(day) == "0 sent, 0 failed"
    with time_machine.travel(at_nine(day) + timedelta(hours=8)):
        tasks.send_reminders()

    assert (len(mail.outbox), len(sms_outbox)) == (1, 1)
    assert sorted(reminders().values_list("channel", "status")) == [
        ("email", "sent"),
        ("sms", "sent"),
    ]


def test_a_customer_without_a_phone_gets_the_email_only(first, sms_outbox):
    run_daily(first.due_date - timedelta(days=3))

    assert len(mail.outbox) == 1
    assert sms_outbox == []
    assert list(reminders().values_list("channel", flat=True)) == ["email"]


def test_a_number_added_after_the_email_gets_only_the_text_on_a_rerun(
    plan_active, first, sms_outbox
):
    day = first.due_date - timedelta(days=3)
    run_daily(day)
    with_phone(plan_active)

    assert run_daily(day) == "1 sent, 0 failed"

    assert len(mail.outbox) == 1
    assert [sms.to for sms in sms_outbox] == [PHONE]


def test_an_installment_paid_early_gets_no_reminder(plan_active, first, api):
    # The sandbox's time travel charges the next installment now.
    response = api.post(
        f"/api/v1/sandbox/payment-plans/{plan_active.plan.public_id}/collect-next",
        **plan_active.owner.headers,
    )
    assert response.status_code == 200, response.content
    first.refresh_from_db()
    assert first.status == Installment.Status.PAID

    assert run_daily(first.due_date - timedelta(days=3)) == "0 sent, 0 failed"


def test_a_cancelled_installment_gets_no_reminder(first):
    # "cancelled" is issue 16's refund and cancellation status (part A2).
    Installment.objects.filter(pk=first.pk).update(status="cancelled")

    assert run_daily(first.due_date - timedelta(days=3)) == "0 sent, 0 failed"


@pytest.mark.parametrize("status", ["cancelled", "defaulted", "completed"])
def test_a_plan_no_longer_active_gets_no_reminder(plan_active, first, status):
    PaymentPlan.objects.filter(pk=plan_active.plan.pk).update(status=status)

    assert run_daily(first.due_date - timedelta(days=3)) == "0 sent, 0 failed"


def test_without_a_payment_method_the_reminder_says_to_add_one(plan_active, first):
    customer = plan_active.shopper.customer
    for method in customer.payment_methods.all():
        payment_method_delete(customer=customer, public_id=method.public_id)

    run_daily(first.due_date - timedelta(days=3))

    (email,) = mail.outbox
    assert "You have no active payment method on your account" in email.body


@responses.activate
def test_a_text_the_provider_refused_is_recorded_failed_and_never_resent(
    plan_active, first, settings, sms_outbox
):
    settings.SMS_URL = "termii://TLkey@ShopNG"
    responses.post(
        "https://api.ng.termii.com/api/sms/send",
        status=400,
        json={"message": "Country Inactive"},
    )
    with_phone(plan_active)
    day = first.due_date - timedelta(days=3)

    assert run_daily(day) == "1 sent, 1 failed"
    assert run_daily(day) == "0 sent, 0 failed"

    assert len(responses.calls) == 1
    sms = reminders("sms").get()
    assert sms.status == "failed"
    assert sms.error == "Termii refused the message (400: Country Inactive)"
    assert sms.failed_at is not None
    assert reminders("email").get().status == "sent"


def test_many_customers_are_reminded_once_each_chunk_by_chunk(db, monkeypatch):
    monkeypatch.setattr(services, "CHUNK", 2)
    plans = [make_active_plan(email=f"r{n}@mail.example.com").plan for n in range(5)]
    days = {installments_of(plan)[0].due_date for plan in plans}
    assert len(days) == 1

    assert run_daily(days.pop() - timedelta(days=3)) == "5 sent, 0 failed"

    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        f"r{n}@mail.example.com" for n in range(5)
    )


def test_a_run_out_of_time_continues_the_same_day(first, monkeypatch):
    enqueued = []
    monkeypatch.setattr(services, "BUDGET_SECONDS", -1)
    monkeypatch.setattr(tasks, "async_task", lambda *args, **kw: enqueued.append(args))
    day = first.due_date - timedelta(days=3)

    run_daily(day)

    assert enqueued == [(tasks.REMINDERS_TASK, day.isoformat())]


def test_reminders_are_a_daily_schedule_at_nine_in_lagos():
    [spec] = [s for s in declared() if s.name == "installments-send-reminders"]

    assert spec.func == "installments.notifications.tasks.send_reminders"
    assert (spec.schedule_type, spec.at) == (Schedule.DAILY, time(9, 0))


def test_the_first_run_is_the_next_nine_oclock_and_a_resync_keeps_it(db):
    morning = timezone.make_aware(datetime(2026, 3, 2, 8, 0))
    afternoon = timezone.make_aware(datetime(2026, 3, 2, 15, 0))
    assert next_at(time(9), morning) == timezone.make_aware(datetime(2026, 3, 2, 9))
    assert next_at(time(9), afternoon) == timezone.make_aware(datetime(2026, 3, 3, 9))

    with time_machine.travel(afternoon, tick=False):
        sync()
    schedule = Schedule.objects.get(name="installments-send-reminders")
    assert timezone.localtime(schedule.next_run) == timezone.make_aware(
        datetime(2026, 3, 3, 9)
    )
    Schedule.objects.filter(pk=schedule.pk).update(next_run=afternoon)
    sync()
    schedule.refresh_from_db()
    assert schedule.next_run == afternoon


class RefusingEmailBackend(locmem.EmailBackend):
    """Refuses mail to addresses starting with "refused"."""

    def send_messages(self, messages):
        for message in messages:
            if message.to[0].startswith("refused"):
                raise smtplib.SMTPRecipientsRefused({message.to[0]: (550, b"no")})
        return super().send_messages(messages)


class UnreachableEmailBackend(locmem.EmailBackend):
    def open(self):
        raise ConnectionRefusedError("smtp.example.com:587 refused the connection")


def test_an_email_refused_is_recorded_failed_and_the_others_still_go(db, settings):
    settings.EMAIL_BACKEND = f"{__name__}.RefusingEmailBackend"
    plans = [
        make_active_plan(email=address).plan
        for address in ("refused@mail.example.com", "ok@mail.example.com")
    ]

    line = run_daily(installments_of(plans[0])[0].due_date - timedelta(days=3))

    assert line == "1 sent, 1 failed"
    assert [m.to for m in mail.outbox] == [["ok@mail.example.com"]]
    failed = reminders().get(status="failed")
    assert failed.recipient == "refused@mail.example.com"
    assert failed.error.startswith("SMTPRecipientsRefused")


def test_an_unreachable_mail_server_fails_the_emails_not_the_texts(
    plan_active, first, settings, sms_outbox
):
    settings.EMAIL_BACKEND = f"{__name__}.UnreachableEmailBackend"
    with_phone(plan_active)

    assert run_daily(first.due_date - timedelta(days=3)) == "1 sent, 1 failed"

    assert reminders("email").get().error == (
        "ConnectionRefusedError: smtp.example.com:587 refused the connection"
    )
    assert len(sms_outbox) == 1
