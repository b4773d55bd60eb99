"""Hard and soft declines in the auto-debit engine (DESIGN section 15): a hard
decline is never retried on the same method, the customer's other methods are
tried in the same attempt, and with none left the installment waits
(`action_required`) with one e-mail and SMS to the customer, until a new
method's first engine pass or the end of its wait; always within the limit of
four attempts.

Time moves with time-machine: the sandbox's card `4084080000000011` expires at
the end of the month it is added in, so a plan bought on 25 March with it meets
an expired card at its first due date in April."""

from datetime import timedelta

import pytest
from django.core import mail

from installments.collection import MAX_ATTEMPTS
from installments.notifications import tasks as notification_tasks
from installments.notifications.models import Message
from installments.plans.models import Installment
from payments.gateway.processors import get_processor
from payments.gateway.processors.sandbox.values import CARD_EXPIRES_THIS_MONTH
from payments.models import Customer, PaymentMethod

from ..checkout.conftest import (
    CARD_OK,
    CARD_POOR,
    complete,
    open_session,
)
from .conftest import PlanSetup, charges_for, check_ledger, installments_of
from .declines import (
    BOUGHT_ON,
    add_card_later,
    bought_with,
    charges_with,
    collect_now,
    lagos,
    method_of,
    on,
    wait_for_method,
)
from .failed_collections import failures

pytestmark = pytest.mark.django_db


def notices(installment) -> list[Message]:
    return list(
        Message.objects.filter(
            kind=Message.Kind.ACTION_REQUIRED,
            subject__startswith=f"{installment.public_id}_a",
        ).order_by("id")
    )


@pytest.fixture
def expired_only(db) -> PlanSetup:
    """A plan whose customer's only card has expired by its first due date."""
    return bought_with(CARD_EXPIRES_THIS_MONTH)


# --- nothing left: action_required ---------------------------------------------


def test_an_expired_only_card_is_marked_expired_and_the_installment_waits(
    expired_only, committed, sms_outbox
):
    setup = expired_only
    Customer.objects.filter(pk=setup.plan.customer_id).update(
        sms_phone="+2348012345678"
    )

    first = wait_for_method(setup, committed)

    assert (first.status, first.attempts) == ("action_required", 1)
    assert first.last_failure_reason == "card_expired"
    # The wait ends at the time of the last retry: 10:00 on the due date + 7.
    assert first.next_attempt_at == lagos(first.due_date + timedelta(days=7), 10)
    card = method_of(setup, CARD_EXPIRES_THIS_MONTH)
    assert (card.status, card.is_default) == ("expired", False)
    assert card.expired_at is not None
    assert [
        (c.reference, c.metadata["failure_reason"]) for c in charges_for(first)
    ] == [(f"{first.public_id}_a1", "card_expired")]
    assert failures(setup.plan) == [
        {
            "resourceType": "payment_plan",
            "resourceId": setup.plan.public_id,
            "orderReference": setup.plan.order_reference,
            "reason": "card_expired",
            "retryable": False,
            "channel": "card",
        }
    ]
    # The attempt failed (history, score), then the installment waits.
    assert list(first.status_changes.values_list("from_status", "to_status", "reason"))[
        -2:
    ] == [
        ("processing", "failed", "card_expired"),
        ("failed", "action_required", ""),
    ]
    # One e-mail and one SMS, with the link to add a method; no retry e-mail.
    assert [(m.channel, m.status) for m in notices(first)] == [
        ("email", "sent"),
        ("sms", "sent"),
    ]
    [email] = mail.outbox
    assert email.to == [setup.plan.customer.email]
    assert "Add a payment method" in email.subject
    assert "the card has expired" in email.body
    assert "/account/" in email.body
    assert "try again" not in email.body
    [text] = sms_outbox
    assert "/pay/" in text.body and "card has expired" in text.body


def test_a_waiting_installment_is_left_alone_by_passes_without_a_new_method(
    expired_only, committed
):
    setup = expired_only
    first = wait_for_method(setup, committed)
    card = method_of(setup, CARD_EXPIRES_THIS_MONTH)
    asked = charges_with(card).count()  # the deposit and attempt 1

    for days, hour in ((0, 12), (1, 11), (3, 11), (6, 23)):
        with on(first.due_date + timedelta(days=days), hour):
            assert collect_now(committed).claimed == 0

    first.refresh_from_db()
    assert (first.status, first.attempts) == ("action_required", 1)
    # The expired card was never asked again, and the customer asked once.
    assert charges_with(card).count() == asked == 2
    assert len(notices(first)) == 1
    assert len(mail.outbox) == 1
    notification_tasks.send_action_required_notices()
    assert len(notices(first)) == 1


def test_a_new_method_is_charged_at_the_next_pass_and_not_before(
    expired_only, committed
):
    setup = expired_only
    first = wait_for_method(setup, committed)
    expired = method_of(setup, CARD_EXPIRES_THIS_MONTH)
    day = first.due_date + timedelta(days=2)

    with on(day, 13, 55):
        assert collect_now(committed).claimed == 0
    with on(day, 14):
        new = add_card_later(setup)
    # Adding it charges nothing by itself: the next engine pass does.
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("action_required", 1)

    with on(day, 14, 5):
        summary = collect_now(committed)

    assert (summary.claimed, summary.resumed, summary.tally.paid) == (1, 0, 1)
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 2)
    assert first.processor_reference == f"{first.public_id}_a2"
    [charge] = charges_for(first).filter(status="success")
    assert charge.authorization.authorization_code == (
        PaymentMethod.objects.get(public_id=new).authorization_code
    )
    assert charges_with(expired).count() == 2
    assert "clean" in check_ledger()


def test_the_wait_ends_with_one_more_attempt_then_the_default(expired_only, committed):
    setup = expired_only
    first = wait_for_method(setup, committed)
    last_retry_day = first.due_date + timedelta(days=7)
    with on(last_retry_day, 9, 55):
        assert collect_now(committed).claimed == 0
    mail.outbox.clear()

    with on(last_retry_day, 10, 5):
        summary = collect_now(committed)

    assert (
        summary.claimed,
        summary.resumed,
        summary.tally.paid,
        summary.tally.failed,
        summary.tally.defaulted,
    ) == (1, 0, 0, 1, 1)
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("defaulted", 2)
    assert first.last_failure_reason == "no_payment_method"
    setup.plan.refresh_from_db()
    assert setup.plan.status == "defaulted"
    # The later installments are no longer collected.
    assert {(i.status, i.next_attempt_at) for i in installments_of(setup.plan)[1:]} == {
        ("scheduled", None)
    }
    assert [f["reason"] for f in failures(setup.plan)] == [
        "card_expired",
        "no_payment_method",
    ]
    customer_mail, merchant_mail = mail.outbox
    assert "in default" in customer_mail.subject
    assert "after 2 attempts" in customer_mail.body
    assert merchant_mail.to == [setup.plan.merchant.email]


def test_a_hard_decline_again_waits_again_and_the_attempts_stay_within_the_limit(
    expired_only, committed
):
    setup = expired_only
    first = wait_for_method(setup, committed)
    due = first.due_date
    # The customer adds a card whose authorization the bank then withdraws.
    with on(due + timedelta(days=1), 8):
        revoked = add_card_later(setup)
        get_processor().revoke_authorization(
            authorization_code=PaymentMethod.objects.get(
                public_id=revoked
            ).authorization_code
        )
    with on(due + timedelta(days=1), 8, 5):
        collect_now(committed)
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("action_required", 2)
    assert first.last_failure_reason == "authorization_revoked"
    # The same end of the wait as before: the due date + 7, 10:00.
    assert first.next_attempt_at == lagos(due + timedelta(days=7), 10)
    assert [m.subject for m in notices(first)] == [
        f"{first.public_id}_a1",
        f"{first.public_id}_a2",
    ]

    # Then a card with too little money: soft declines, on the retry schedule.
    with on(due + timedelta(days=2), 8):
        poor = add_card_later(setup, CARD_POOR)
    for day, hour in ((2, 8), (3, 10), (7, 10)):
        with on(due + timedelta(days=day), hour, 5):
            collect_now(committed)

    first.refresh_from_db()
    assert (first.status, first.attempts) == ("defaulted", MAX_ATTEMPTS)
    assert [c.reference for c in charges_for(first)] == [
        f"{first.public_id}_a{n}" for n in range(1, MAX_ATTEMPTS + 1)
    ]
    assert charges_with(PaymentMethod.objects.get(public_id=revoked)).count() == 1
    assert charges_with(PaymentMethod.objects.get(public_id=poor)).count() == 2
    assert [(f["reason"], f["retryable"]) for f in failures(setup.plan)] == [
        ("card_expired", False),
        ("authorization_revoked", False),
        ("insufficient_funds", True),
        ("insufficient_funds", True),
    ]


# --- other methods in the same attempt ------------------------------------------


def test_after_a_hard_decline_the_other_method_pays_in_the_same_attempt(db, committed):
    setup = bought_with(
        CARD_OK, CARD_EXPIRES_THIS_MONTH, default=CARD_EXPIRES_THIS_MONTH
    )
    first, second, _ = installments_of(setup.plan)
    expired = method_of(setup, CARD_EXPIRES_THIS_MONTH)

    with on(first.due_date):
        summary = collect_now(committed)

    assert (summary.tally.paid, summary.tally.failed) == (1, 0)
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 1)
    assert first.processor_reference == f"{first.public_id}_a1m2"
    assert [(c.reference, c.status) for c in charges_for(first)] == [
        (f"{first.public_id}_a1", "failed"),
        (f"{first.public_id}_a1m2", "success"),
    ]
    expired.refresh_from_db()
    assert expired.status == "expired"
    assert method_of(setup, CARD_OK).is_default  # the one left is the default
    assert failures(setup.plan) == []

    # The next installment charges only the card that is left.
    asked = charges_with(expired).count()
    with on(second.due_date):
        collect_now(committed)
    assert [c.reference for c in charges_for(second)] == [f"{second.public_id}_a1"]
    assert charges_with(expired).count() == asked


def test_a_hard_and_a_soft_decline_retry_only_the_method_that_may_still_pay(
    db, committed
):
    setup = bought_with(
        CARD_OK,
        CARD_POOR,
        CARD_EXPIRES_THIS_MONTH,
        default=CARD_EXPIRES_THIS_MONTH,
        remove=(CARD_OK,),
    )
    first = installments_of(setup.plan)[0]
    expired = method_of(setup, CARD_EXPIRES_THIS_MONTH)

    with on(first.due_date):
        collect_now(committed)

    first.refresh_from_db()
    assert (first.status, first.last_failure_reason) == ("failed", "insufficient_funds")
    assert first.next_attempt_at == lagos(first.due_date + timedelta(days=1), 10)
    assert [(f["reason"], f["retryable"]) for f in failures(setup.plan)] == [
        ("insufficient_funds", True)
    ]
    assert charges_with(expired).count() == 1
    assert notices(first) == []

    with on(first.due_date + timedelta(days=1), 10, 5):
        collect_now(committed)

    assert [c.reference for c in charges_for(first)] == [
        f"{first.public_id}_a1",
        f"{first.public_id}_a1m2",
        f"{first.public_id}_a2",
    ]
    assert charges_with(expired).count() == 1


def test_one_customers_expired_card_is_charged_once_per_pass(db, committed):
    """Two plans of one customer due the same day: the second claim of the
    pass does not charge the card the first one found expired."""
    setup = bought_with(CARD_EXPIRES_THIS_MONTH)
    with on(BOUGHT_ON, 12, 30):
        setup.shopper.sign_in_again()
        token = open_session(setup.owner, order_reference="ORD-1002")
        method = method_of(setup, CARD_EXPIRES_THIS_MONTH).public_id
        assert complete(setup.shopper, token, method).status_code == 201
    card = method_of(setup, CARD_EXPIRES_THIS_MONTH)
    due = installments_of(setup.plan)[0].due_date

    with on(due):
        collect_now(committed)

    waiting = Installment.objects.filter(status="action_required")
    assert waiting.count() == 2
    assert charges_with(card).count() == 2 + 1  # two deposits, one attempt
    assert {row.last_failure_reason for row in waiting} == {
        "card_expired",
        "no_payment_method",
    }
