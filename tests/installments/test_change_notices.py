"""Notices of change (DESIGN section 18): a merchant's reschedule, a refund that
changes what is still owed and a cancellation each tell the customer, by e-mail
and (to a mobile number) by SMS, the new schedule, what changed and how to
reach the merchant, recorded in the change's own transaction, once per change.
A merchant's move gives at least 14 days' notice (422 `notice_too_short`); a
customer's own move is bound by nothing of the kind and tells them nothing.

The plan: deposit 75,000 kobo paid on Wednesday 25 November 2026, installments
of 58,334 / 58,333 / 58,333 due 2 December 2026, 4 January and 2 February 2027."""

from datetime import date

import pytest
from django.core import mail
from django.test import Client
from rest_framework.test import APIClient

from installments.notifications.models import Message
from installments.plans.models import PaymentPlan
from installments.reschedules import rules
from installments.reschedules.models import Reschedule
from merchants.models import Merchant

from ..conftest import customer_jwt
from ..dashboards import sign_in
from .account import text
from .conftest import cancel, installments_of, make_active_plan, refund
from .receipts import PHONE, with_phone
from .reschedule_days import FIRST, SECOND, TODAY, on

pytestmark = pytest.mark.django_db

Kind = Message.Kind
# A Wednesday: 13 days later is Tuesday 8 December, 14 days Wednesday 9 December.
NOW = date(2026, 11, 25)
THIRTEEN, FOURTEEN = date(2026, 12, 8), date(2026, 12, 9)


@pytest.fixture
def setup(db):
    with on(TODAY):
        made = make_active_plan()
    Merchant.objects.filter(pk=made.owner.merchant.pk).update(
        support_email="help@shop.example", support_phone="+234 800 123 4567"
    )
    with on(NOW):
        yield made


def move(setup, installment, due_date, *, by_merchant=True):
    """The plan's merchant (its API key) asks for the move, or its customer (a
    token issued now)."""
    token = (
        setup.owner.headers["HTTP_AUTHORIZATION"]
        if by_merchant
        else f"Bearer {customer_jwt(setup.shopper.customer)}"
    )
    return APIClient(headers={"Authorization": token}).post(
        f"{setup.url}/installments/{installment.public_id}/reschedule",
        {"due_date": str(due_date)},
        format="json",
    )


def nth(setup, n: int):
    return installments_of(setup.plan)[n - 1]


def notices(kind=None) -> list[tuple[str, str, str]]:
    """(kind, subject, channel) of every notice of change recorded."""
    rows = Message.objects.filter(
        kind__in=[kind] if kind else [Kind.SCHEDULE_CHANGED, Kind.PLAN_CANCELLED]
    )
    return sorted(rows.values_list("kind", "subject", "channel"))


def body(kind, channel="email") -> str:
    return Message.objects.get(kind=kind, channel=channel).body


def state(setup) -> list[tuple]:
    return [
        (row.due_date, row.next_attempt_at, row.amount, row.status)
        for row in installments_of(setup.plan)
    ]


# --- the rule: 14 days' notice of a merchant's move -------------------------------


def test_the_earliest_date_a_merchant_may_choose_is_a_working_day_14_days_on():
    assert rules.earliest_with_notice(NOW) == FOURTEEN
    # Sunday 22 November: 14 days on is Sunday 6 December, so Monday the 7th.
    assert rules.earliest_with_notice(date(2026, 11, 22)) == date(2026, 12, 7)
    # 14 days after 11 December is Christmas: Boxing Day is a Saturday, and the
    # Monday after it is the Boxing Day holiday moved, so Tuesday 29th.
    assert rules.earliest_with_notice(date(2026, 12, 11)) == date(2026, 12, 29)


@pytest.mark.parametrize(
    "new, by, refused",
    [
        (THIRTEEN, rules.MERCHANT, True),
        (FOURTEEN, rules.MERCHANT, False),
        (THIRTEEN, rules.CUSTOMER, False),
    ],
)
def test_only_a_merchants_move_is_held_to_14_days_notice(new, by, refused):
    move_ = rules.Move(sequence=1, current=FIRST, new=new, next_due=SECOND, today=NOW)

    assert (rules.notice_refusal(move_, by=by) is not None) is refused


def test_a_merchants_move_13_days_ahead_is_a_422_naming_the_earliest_date(setup):
    before = state(setup)

    response = move(setup, nth(setup, 1), THIRTEEN)

    assert response.status_code == 422, response.content
    error = response.json()["error"]
    assert error["code"] == "notice_too_short"
    assert error["message"] == (
        "A due date you move must be at least 14 days from today, so that your "
        "customer is told in advance: choose Wednesday 9 December 2026 or a later "
        "working day."
    )
    assert state(setup) == before
    assert not Reschedule.objects.exists()
    assert notices() == []


def test_a_merchants_move_14_days_ahead_is_made_and_told(setup):
    response = move(setup, nth(setup, 1), FOURTEEN)

    assert response.status_code == 200, response.content
    assert nth(setup, 1).due_date == FOURTEEN
    subject = f"rs_{Reschedule.objects.get().pk}"
    assert notices() == [(Kind.SCHEDULE_CHANGED, subject, "email")]


def test_moving_a_date_earlier_stays_refused_as_before(setup):
    before = state(setup)

    for new in (date(2026, 12, 28), date(2026, 12, 3)):  # 33 and 8 days ahead
        response = move(setup, nth(setup, 2), new)

        assert response.status_code == 422
        error = response.json()["error"]
        assert error["code"] == "reschedule_not_allowed"
        assert "a due date can only move later" in error["message"]
    assert state(setup) == before
    assert notices() == []


def test_a_customer_moving_their_own_date_is_not_bound_and_not_told(setup):
    with_phone(setup)
    before = Message.objects.count()

    response = move(setup, nth(setup, 1), date(2026, 12, 3), by_merchant=False)

    assert response.status_code == 200, response.content
    assert nth(setup, 1).due_date == date(2026, 12, 3)  # 8 days from today
    assert Message.objects.count() == before


def test_the_dashboard_refuses_a_move_13_days_ahead_and_names_the_earliest(setup):
    client = sign_in(Client(), setup.owner.merchant)
    page = f"/dashboard/plans/{setup.plan.public_id}/reschedule/"
    assert "<strong>Wednesday 9 December 2026</strong> at the earliest" in text(
        client.get(page)
    )

    response = client.post(
        page, {"installment_id": nth(setup, 1).public_id, "due_date": "2026-12-08"}
    )

    assert response.status_code == 422
    assert "choose Wednesday 9 December 2026 or a later working day" in text(response)
    assert nth(setup, 1).due_date == FIRST
    assert notices() == []

    moved = client.post(
        page, {"installment_id": nth(setup, 1).public_id, "due_date": "2026-12-09"}
    )

    assert moved.status_code == 303
    assert [kind for kind, _, _ in notices()] == [Kind.SCHEDULE_CHANGED]


# --- the notice of a merchant's reschedule -----------------------------------------


def test_a_merchants_move_tells_the_customer_the_new_schedule_by_email_and_sms(
    setup, committed, sms_outbox
):
    with_phone(setup)

    with committed():
        assert move(setup, nth(setup, 1), FOURTEEN).status_code == 200

    subject = f"rs_{Reschedule.objects.get().pk}"
    assert notices() == [
        (Kind.SCHEDULE_CHANGED, subject, "email"),
        (Kind.SCHEDULE_CHANGED, subject, "sms"),
    ]
    (email,) = mail.outbox
    assert email.to == ["ada@mail.example.com"]
    assert email.subject == "Your payment schedule for order ORD-1001 has changed"
    assert (
        "Installment 1 of 3 (NGN 583.34) is now due on Wednesday 09 December 2026 "
        "instead of Wednesday 02 December 2026. No amount changed.\n\n"
        "What you still pay for order ORD-1001 from "
    ) in email.body
    assert (
        "- installment 1 of 3: NGN 583.34 on Wednesday 09 December 2026\n"
        "- installment 2 of 3: NGN 583.33 on Monday 04 January 2027\n"
        "- installment 3 of 3: NGN 583.33 on Tuesday 02 February 2027\n"
        "Total still owed: NGN 1,750.00\n"
    ) in email.body
    assert ": help@shop.example or +234 800 123 4567\n" in email.body
    # The pay link, written in when it was sent (never stored in the row).
    assert "{pay_link}" in body(Kind.SCHEDULE_CHANGED)
    assert "{pay_link}" not in email.body and "/pay/" in email.body
    (sms,) = sms_outbox
    assert sms.to == PHONE
    assert sms.body.startswith(
        "Plan changed: installment 1 of 3 moved from 02 Dec 2026 to 09 Dec 2026 for "
    )
    assert (
        "Still to pay: NGN 583.34 on 09 Dec 2026, NGN 583.33 on 04 Jan 2027, "
        "NGN 583.33 on 02 Feb 2027 (total NGN 1,750.00). Questions: "
        "+234 800 123 4567 Pay: "
    ) in sms.body
    assert "\n" not in sms.body and sms.body.isascii()


def test_without_a_mobile_number_the_notice_is_an_email_only(setup):
    assert move(setup, nth(setup, 3), date(2027, 3, 1)).status_code == 200

    assert [channel for _, _, channel in notices()] == ["email"]
    assert "- installment 3 of 3: NGN 583.33 on Monday 01 March 2027\n" in body(
        Kind.SCHEDULE_CHANGED
    )


def test_the_merchants_account_email_is_the_contact_without_a_support_address(setup):
    Merchant.objects.filter(pk=setup.owner.merchant.pk).update(
        support_email="", support_phone=""
    )

    assert move(setup, nth(setup, 1), FOURTEEN).status_code == 200

    merchant = Merchant.objects.get(pk=setup.owner.merchant.pk)
    assert f": {merchant.email}\n\nYour plan: " in body(Kind.SCHEDULE_CHANGED)


def test_the_same_move_asked_again_is_refused_and_told_once(setup):
    with_phone(setup)
    assert move(setup, nth(setup, 1), FOURTEEN).status_code == 200

    again = move(setup, nth(setup, 1), FOURTEEN)

    assert again.status_code == 422
    assert len(notices()) == 2  # the one move's e-mail and SMS

    assert move(setup, nth(setup, 1), date(2026, 12, 10)).status_code == 200
    assert len(notices()) == 4  # a second move is a second change


def test_a_move_rolled_back_records_no_notice(setup, monkeypatch):
    from installments.reschedules import services

    def broken(**kwargs):
        raise RuntimeError("the event store is down")

    monkeypatch.setattr(services, "emit_events", broken)

    with pytest.raises(RuntimeError):
        services.installment_reschedule(
            plan=setup.plan,
            installment_id=nth(setup, 1).public_id,
            due_date=FOURTEEN,
            by=rules.MERCHANT,
        )

    assert nth(setup, 1).due_date == FIRST
    assert notices() == []


# --- refunds ---------------------------------------------------------------------


def test_a_refund_off_what_is_owed_tells_the_new_schedule_once(setup, sms_outbox):
    with_phone(setup)
    key = "6f1c7a1e-4d0e-4b4a-9a57-1f0a8e2c9b10"

    first = refund(setup, 20_000, "Returned one of two chargers", key=key)
    replayed = refund(setup, 20_000, "Returned one of two chargers", key=key)

    assert first.status_code == replayed.status_code == 201
    refund_id = first.json()["data"]["id"]
    assert replayed.json()["data"]["id"] == refund_id
    assert notices() == [
        (Kind.SCHEDULE_CHANGED, refund_id, "email"),
        (Kind.SCHEDULE_CHANGED, refund_id, "sms"),
    ]
    email = body(Kind.SCHEDULE_CHANGED)
    assert (
        "They refunded NGN 200.00 of your order: NGN 200.00 comes off the "
        'installments you still had to pay. Their reason: "Returned one of two '
        'chargers".'
    ) in email
    assert (
        "- installment 1 of 3: NGN 583.34 on Wednesday 02 December 2026\n"
        "- installment 2 of 3: NGN 583.33 on Monday 04 January 2027\n"
        "- installment 3 of 3: NGN 383.33 on Tuesday 02 February 2027\n"
        "Total still owed: NGN 1,550.00\n"
    ) in email
    assert "{pay_link}" in email
    sms = body(Kind.SCHEDULE_CHANGED, "sms")
    assert sms.startswith(
        "Plan changed: refund of NGN 200.00, NGN 200.00 off what you owe for "
    )
    assert "NGN 383.33 on 02 Feb 2027 (total NGN 1,550.00)." in sms

    second = refund(setup, 10_000, "Late delivery")

    assert second.status_code == 201
    assert len(notices()) == 4  # a second refund is a second change


def test_a_refund_of_everything_still_owed_says_nothing_more_will_be_collected(
    setup,
):
    response = refund(setup, 175_000, "Order returned")

    assert response.status_code == 201
    assert PaymentPlan.objects.get(pk=setup.plan.pk).status == "cancelled"
    (row,) = Message.objects.filter(kind=Kind.SCHEDULE_CHANGED)
    assert row.subject == response.json()["data"]["id"]
    assert (
        "You owe nothing more for order ORD-1001 from " in row.body
        and ": nothing more will be collected.\n" in row.body
    )
    assert "{pay_link}" not in row.body and row.pay_link is None


def test_a_refund_of_money_only_sends_no_notice_of_change(setup, committed):
    assert cancel(setup).status_code == 200  # nothing is owed any more
    before = notices()

    with committed():
        response = refund(setup, 30_000, "Goodwill")

    assert response.status_code == 201
    assert response.json()["data"]["amount_reduced"] == 0
    assert notices() == before == [(Kind.PLAN_CANCELLED, setup.plan.public_id, "email")]
    assert not Message.objects.filter(
        kind=Kind.SCHEDULE_CHANGED, subject=response.json()["data"]["id"]
    ).exists()


# --- cancellation ------------------------------------------------------------------


def test_a_cancellation_tells_the_customer_nothing_more_will_be_collected_once(
    setup, committed, sms_outbox
):
    with_phone(setup)

    with committed():
        assert cancel(setup, "Out of stock").status_code == 200
    again = cancel(setup, "Out of stock")

    assert again.status_code == 409
    assert notices() == [
        (Kind.PLAN_CANCELLED, setup.plan.public_id, "email"),
        (Kind.PLAN_CANCELLED, setup.plan.public_id, "sms"),
    ]
    (email,) = mail.outbox
    assert email.subject == "Your payment plan for order ORD-1001 is cancelled"
    assert 'cancelled your payment plan for order ORD-1001. Their reason: "Out of ' in (
        email.body
    )
    assert (
        "The 3 installments you still had to pay (NGN 1,750.00 in all) are "
        "cancelled. Nothing more will be collected."
    ) in email.body
    assert "help@shop.example or +234 800 123 4567" in email.body
    assert "/pay/" not in email.body
    (sms,) = sms_outbox
    assert sms.body.startswith("Plan cancelled: ")
    assert sms.body.endswith(
        "Nothing more will be collected. Questions: +234 800 123 4567"
    )


def test_a_cancellation_rolled_back_records_no_notice(setup, monkeypatch):
    from installments.cancellation import services

    def broken(**kwargs):
        raise RuntimeError("the event store is down")

    monkeypatch.setattr(services, "emit_events", broken)

    with pytest.raises(RuntimeError):
        services.plan_merchant_cancel(plan=setup.plan, reason="Out of stock")

    assert PaymentPlan.objects.get(pk=setup.plan.pk).status == "active"
    assert notices() == []


# --- the merchant's reason reaches the customer: one line at entry ----------------


@pytest.mark.parametrize("reason", ["Returned\nCall 0800 000 0000", "Out\x1b[0m"])
def test_a_reason_with_control_characters_is_a_400_and_changes_nothing(setup, reason):
    before = state(setup)

    refunded = refund(setup, 20_000, reason)
    cancelled = cancel(setup, reason)

    for response in (refunded, cancelled):
        assert response.status_code == 400, response.content
        assert response.json()["errors"]["reason"] == [
            "Line breaks and other control characters are not allowed."
        ]
    assert state(setup) == before
    assert PaymentPlan.objects.get(pk=setup.plan.pk).status == "active"
    assert notices() == []


def test_the_dashboard_refuses_a_cancellation_reason_on_two_lines(setup):
    client = sign_in(Client(), setup.owner.merchant)

    response = client.post(
        f"/dashboard/plans/{setup.plan.public_id}/cancel/",
        {"reason": "Out of stock\r\nAlert: pay to 0123456789"},
    )

    assert response.status_code == 400
    assert "control characters are not allowed" in text(response)
    assert PaymentPlan.objects.get(pk=setup.plan.pk).status == "active"
    assert notices() == []
