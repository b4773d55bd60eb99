"""A refund's receipt goes to the customer once, when the refund is processed
(DESIGN section 14): at once for a refund that moves no money, after the
processor's word (here the sandbox's settlement pass) for one that does, never
for one that failed, and never twice whatever answers again.

The plan of `plan_active`: 250,000 kobo, deposit 75,000 paid, installments
58,334 / 58,333 / 58,333 scheduled."""

from django.core import mail

from installments.notifications.models import Message
from installments.refunds.models import Refund, RefundPart
from payments.gateway.processors.sandbox.values import CARD_REFUNDS_FAIL

from .conftest import collect, installments_of, refund, sandbox_refunds_settle
from .receipts import PHONE, with_phone
from .refund_plans import dispatch, plan_paid_with


def refund_receipts() -> list[tuple[str, str, str]]:
    """(refund id, channel, status) of every refund receipt recorded."""
    return sorted(
        Message.objects.filter(kind=Message.Kind.RECEIPT_REFUND).values_list(
            "subject", "channel", "status"
        )
    )


def refund_mails() -> list:
    return [m for m in mail.outbox if m.subject.startswith("Refund of")]


def test_a_refund_that_moves_no_money_sends_its_receipt_once_at_once(
    plan_active, committed, sms_outbox
):
    with_phone(plan_active)

    with committed():
        data = refund(plan_active, 70_000, "Returned the charger").json()["data"]
    with committed():
        sandbox_refunds_settle()  # nothing of this refund is pending

    assert data["status"] == "processed"
    assert refund_receipts() == [
        (data["id"], "email", "sent"),
        (data["id"], "sms", "sent"),
    ]
    (email,) = refund_mails()
    assert email.to == ["ada@mail.example.com"]
    assert email.subject == "Refund of NGN 700.00 for order ORD-1001"
    assert "Your unpaid installments are NGN 700.00 lower." in email.body
    assert f"Refund number: {data['id']}" in email.body
    # Beside it, the notice of the changed schedule (test_change_notices.py).
    (sms,) = [sms for sms in sms_outbox if sms.body.startswith("Refund:")]
    assert sms.to == PHONE and data["id"] in sms.body


def test_a_refund_paid_back_in_money_sends_its_receipt_once_when_the_pass_settles_it(
    plan_active, committed
):
    collect(installments_of(plan_active.plan)[0].due_date)
    with committed():
        data = refund(plan_active, 200_000).json()["data"]

    assert data["status"] == "pending"
    assert refund_receipts() == []  # not processed yet
    assert refund_mails() == []

    with committed():
        assert sandbox_refunds_settle() == 2  # both parts
    with committed():
        sandbox_refunds_settle()
        # The processor's word again (a repeated refund.processed event).
        dispatch(
            RefundPart.objects.filter(refund__public_id=data["id"])[0], "processed"
        )

    assert Refund.objects.get(public_id=data["id"]).status == "processed"
    assert refund_receipts() == [(data["id"], "email", "sent")]  # no phone: e-mail
    (email,) = refund_mails()
    assert email.subject == "Refund of NGN 2,000.00 for order ORD-1001"
    assert "Your unpaid installments are NGN 1,166.66 lower." in email.body
    assert "NGN 833.34 goes back to the card or bank account" in email.body


def test_a_failed_refund_sends_no_receipt(db, committed):
    setup = plan_paid_with(CARD_REFUNDS_FAIL)
    collect(installments_of(setup.plan)[0].due_date)

    with committed():
        data = refund(setup, 200_000).json()["data"]
    with committed():
        sandbox_refunds_settle()

    assert data["status"] == "failed"
    assert refund_receipts() == []
    assert refund_mails() == []
