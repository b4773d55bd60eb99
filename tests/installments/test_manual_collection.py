"""Manual collection (DESIGN section 17): a plan finished at checkout with the
deposit paid by transfer and no card or mandate (the merchant's
`manual_collection` on) is never charged by the engine while its customer has
no method; on the due date and on each retry day the customer is told the
installment is due instead (e-mail and SMS, once per attempt), the attempts
advance with the soft reason `not_paid`, and the plan defaults after the last
exactly as any other. A customer who adds a card is charged as on any plan."""

import re
from datetime import datetime, time, timedelta

import pytest
import time_machine
from django.conf import settings
from django.core import mail
from django.utils import timezone
from rest_framework.test import APIClient

from checkout.services import deposit_offline_start
from installments.deposits.consent import Consent
from installments.notifications import tasks
from installments.notifications.models import Message
from installments.plans.models import PaymentPlan
from payments.gateway.services.sandbox_offline import sandbox_offline_complete
from payments.models import SandboxTransaction

from ..checkout.conftest import add_card, open_session, register
from ..conftest import make_merchant_with_key
from .account import signed_in, text
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
        consent=Consent(ip=None, user_agent="pytest"),
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


def test_the_dashboard_names_each_deposit_attempts_channel(manual_plan, dashboard_for):
    owner, _, plan = manual_plan
    browser = dashboard_for(owner.merchant)

    page = browser.get(f"/dashboard/plans/{plan.public_id}/").content.decode()

    table = page[page.index('data-testid="deposit-attempts"') :]
    assert "<th>Channel</th>" in table
    assert '<td data-testid="deposit-channel">Bank transfer</td>' in table


def test_a_card_deposit_is_named_card_on_the_dashboard(plan_active, dashboard_for):
    browser = dashboard_for(plan_active.owner.merchant)

    page = browser.get(f"/dashboard/plans/{plan_active.plan.public_id}/")

    assert '<td data-testid="deposit-channel">Card</td>' in page.content.decode()


def _account_plan_page(plan) -> str:
    answer = signed_in(plan.customer.email).get(f"/account/plans/{plan.public_id}/")
    assert answer.status_code == 200
    return text(answer)


def test_the_customers_plan_page_says_they_pay_each_installment_themselves(
    manual_plan,
):
    _, shopper, plan = manual_plan

    assert "You pay each installment yourself" in _account_plan_page(plan)

    add_card(shopper)  # from now on the engine charges it
    page = _account_plan_page(plan)
    assert "You pay each installment yourself" not in page
    assert "Collected automatically from your card or bank account" in page


def test_an_automatic_plans_page_says_nothing_of_paying_by_hand(plan_active):
    page = _account_plan_page(plan_active.plan)

    assert 'data-testid="manual-collection"' not in page
    assert "You pay each installment yourself" not in page


# --- the reminder before the due date -------------------------------------------

PHONE = "+2348031234567"


def _remind(first) -> None:
    """The daily reminders at 09:00 Lagos, REMINDER_DAYS_BEFORE before `first`."""
    day = first.due_date - timedelta(days=settings.REMINDER_DAYS_BEFORE)
    with time_machine.travel(_at(day, 9, 0), tick=False):
        tasks.send_reminders()


def _with_phone(shopper) -> None:
    customer = shopper.customer
    customer.sms_phone = PHONE
    customer.save(update_fields=["sms_phone"])


def test_the_reminder_tells_a_manual_plans_customer_to_pay_it_themselves(
    manual_plan, sms_outbox
):
    _, shopper, plan = manual_plan
    _with_phone(shopper)
    first = installments_of(plan)[0]

    _remind(first)

    (email,) = mail.outbox
    # The plan's pay link, one for the e-mail and the SMS of the reminder.
    [link] = set(re.findall(r"https?://\S+/pay/[A-Za-z0-9_-]{32}", email.body))
    assert f"is due on {first.due_date:%A %d %B %Y}" in email.subject
    assert "Nothing is charged automatically on this plan: you pay it yourself" in (
        email.body
    )
    assert link in email.body
    assert "payment method" not in email.body and "add one" not in email.body
    (sms,) = sms_outbox
    assert sms.to == PHONE
    assert sms.body.startswith("Reminder: NGN ")
    assert f"is due on {first.due_date:%d %b %Y}" in sms.body
    assert "pay it yourself" in sms.body and sms.body.endswith(link)
    assert "payment method" not in sms.body
    # Recorded as the reminder of that installment: a rerun sends nothing.
    assert set(
        Message.objects.filter(kind=Message.Kind.REMINDER).values_list(
            "subject", "channel"
        )
    ) == {(first.public_id, "email"), (first.public_id, "sms")}
    _remind(first)
    assert (len(mail.outbox), len(sms_outbox)) == (1, 1)


def test_a_manual_plans_customer_with_a_card_is_reminded_of_the_card(manual_plan):
    _, shopper, plan = manual_plan
    add_card(shopper)

    _remind(installments_of(plan)[0])

    (email,) = mail.outbox
    assert "We will charge it to Visa ending 4081 that day." in email.body
    assert "you pay it yourself" not in email.body


def test_the_reminder_and_the_due_notice_carry_the_plans_pay_link(manual_plan):
    """A manual plan's customer pays from the pay link: the reminder and the
    notice on the due date each carry one of the plan's links (the recorded
    body holds only its mark; the sender writes the link in)."""
    _, _, plan = manual_plan
    first = installments_of(plan)[0]

    _remind(first)
    with time_machine.travel(_at(first.due_date, 0)):
        collect()

    emails = (
        Message.objects.filter(channel="email")
        .exclude(kind=Message.Kind.AGREEMENT)  # the checkout's, carrying no link
        .select_related("pay_link")
    )
    assert {m.kind for m in emails} == {Message.Kind.REMINDER, Message.Kind.PAYMENT_DUE}
    for message in emails:
        assert "{pay_link}" in message.body
        assert "/account/plans/" not in message.body
        assert message.pay_link.plan_id == plan.pk
