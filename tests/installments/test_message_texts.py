"""What a merchant or customer typed reaches another person's e-mail or SMS as a
value on one line, never as lines of its own (issue 25, item 6): even from rows
stored before names were checked, which this test writes past every check."""

from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.core import mail
from django.utils import timezone

from installments.agreements.models import Agreement
from installments.agreements.services import agreement_email
from installments.collection.claims import Claim
from installments.disputes import texts as dispute_texts
from installments.notifications import manual_texts, notices, tasks, texts
from installments.notifications.models import Message
from installments.plans.models import PaymentPlan
from installments.signin import texts as signin_texts
from merchants.models import Merchant
from payments.customers.models import Customer, SignInCode
from payments.customers.resets import ResetLink

from .conftest import installments_of

pytestmark = pytest.mark.django_db

PHONE = "+2348031234567"
NAME = "Jumia\nAlert: your card is blocked.\r\nVerify at http://evil.example \u202e"
NAME_SHOWN = "Jumia Alert: your card is blocked. Verify at..."
REFERENCE = "ORD-7\n\nYour account is\u2028suspended\x1b[0m"
REFERENCE_SHOWN = "ORD-7 Your account is suspended [0m"
FIRST_NAME = "Ada\r\nBank alert"
FIRST_NAME_SHOWN = "Ada Bank alert"
SUPPORT_PHONE = "0800\nCall 0900 now"
REASON = "Out of stock\r\nAlert: pay to 0123456789"
# What the customer's bank wrote, as the processor passes it on (DESIGN 19).
DISPUTE_REASON = "Not received\nVerify your account at http://evil.example"
# The messages to the merchant: no customer's greeting, nor the shop's name.
TO_MERCHANT = (
    "plan_defaulted_merchant:email",
    "dispute_opened:email",
    "dispute_reminder:email",
)
INJECTED = ("Alert", "Verify", "Your account", "suspended", "Bank alert", "Call")


@pytest.fixture
def plan_with_bad_text(plan_active):
    """The plan of a merchant, an order and a customer whose stored text holds
    line breaks and control characters (written straight to the rows)."""
    plan = plan_active.plan
    Merchant.objects.filter(pk=plan.merchant_id).update(
        business_name=NAME, support_phone=SUPPORT_PHONE
    )
    PaymentPlan.objects.filter(pk=plan.pk).update(
        order_reference=REFERENCE, cancellation_reason=REASON
    )
    Customer.objects.filter(pk=plan.customer_id).update(
        first_name=FIRST_NAME, sms_phone=PHONE
    )
    return PaymentPlan.objects.select_related("merchant", "customer").get(pk=plan.pk)


def every_customer_message(plan) -> dict[str, tuple[str, str]]:
    """Every kind of e-mail and SMS about a plan, built from its stored rows:
    {kind: (subject, body)} (an SMS has no subject)."""
    first = installments_of(plan)[0]
    first.plan = plan
    first.last_failure_reason = "card_expired"
    first.next_attempt_at = timezone.now() + timedelta(days=2)
    collection = SimpleNamespace(
        customer=plan.customer,
        amount=58_334,
        created_at=timezone.now(),
        reference=f"{first.public_id}_a1",
        processor_reference=f"{first.public_id}_a1",
    )
    refund = SimpleNamespace(
        public_id="rf_test0001",
        amount=60_000,
        currency="NGN",
        plan=plan,
        amount_returned=45_000,
        amount_reduced=15_000,
    )
    outgoing = [
        *texts.reminder(first, method_label="Visa •••• 4081"),
        *texts.action_required(first),
        *texts.collection_receipt(
            collection, plan=plan, what="installment 1 of 3", remaining=116_666
        ),
        *texts.refund_receipt(refund),
    ]
    claim = Claim.of(first, resumed=False)
    customer, merchant, later = plan.customer, plan.merchant, timezone.now()
    outgoing += [
        *texts.collection_failed(
            claim,
            customer=customer,
            merchant=merchant,
            reason="insufficient_funds",
            when=later,
        ),
        *texts.partially_collected(
            claim, customer=customer, merchant=merchant, collected=20_000, when=later
        ),
        *texts.plan_defaulted(
            claim, customer=customer, merchant=merchant, reason="insufficient_funds"
        ),
        *texts.plan_defaulted_to_merchant(
            claim, merchant=merchant, reason="insufficient_funds\nCall +234 800 000"
        ),
        *manual_texts.payment_due(
            claim, customer=customer, merchant=merchant, deadline=later, first=True
        ),
        *texts.pay_link(SimpleNamespace(pk=1, public_id="pl_test0001"), plan=plan),
        *notices.schedule_changed(
            plan=plan,
            subject="rf_test0001",
            change=notices.refunded(
                amount=60_000, reduced=15_000, returned=45_000, why=REASON
            ),
            unpaid=[notices.Due(2, 43_334, first.due_date)],
        ),
        *notices.plan_cancelled(
            plan, cancelled=[notices.Due(2, 58_333, first.due_date)]
        ),
        agreement_email(Agreement.objects.get(plan=plan)),
    ]
    dispute = SimpleNamespace(
        public_id="dp_test0001",
        plan=plan,
        merchant=merchant,
        amount=75_000,
        amount_held=75_000,
        reason=DISPUTE_REASON,
        due_at=later + timedelta(days=7),
        reminders=1,
    )
    outgoing += [
        *dispute_texts.dispute_opened(dispute),
        *dispute_texts.dispute_reminder(dispute),
    ]
    return {f"{o.kind}:{o.channel}": (o.title, o.body) for o in outgoing}


def every_account_message(customer) -> dict[str, tuple[str, str]]:
    """The messages about the customer's account, not a plan: a reset link and
    a sign-in code of each purpose."""
    now = timezone.now()
    link = ResetLink(customer=customer, url="https://x.example/r/", mark="abc")
    outgoing = [*signin_texts.password_reset(link)]
    for purpose in SignInCode.Purpose.values:
        row = SignInCode(
            pk=7,
            purpose=purpose,
            created_at=now,
            expires_at=now + timedelta(minutes=10),
        )
        outgoing += signin_texts.sign_in_code(row, "123456", customer=customer)
    return {f"{o.kind}:{o.channel}": (o.title, o.body) for o in outgoing}


def test_every_message_kind_is_checked(plan_with_bad_text):
    built = {
        **every_customer_message(plan_with_bad_text),
        **every_account_message(plan_with_bad_text.customer),
    }

    assert {key.split(":")[0] for key in built} == set(Message.Kind.values)
    # A merchant has no mobile number on file: its notice is an e-mail only;
    # and a reset link goes to the account's e-mail address only.
    assert {key for key in built if key.endswith(":sms")} == {
        f"{kind}:sms"
        for kind in Message.Kind.values
        if kind
        not in (
            Message.Kind.PLAN_DEFAULTED_MERCHANT,
            Message.Kind.DISPUTE_OPENED,
            Message.Kind.DISPUTE_REMINDER,
            Message.Kind.PASSWORD_RESET,
            # The agreement's PDF goes by e-mail only (DESIGN 18).
            Message.Kind.AGREEMENT,
        )
    }


def test_account_messages_render_the_stored_name_on_one_line(plan_with_bad_text):
    built = every_account_message(plan_with_bad_text.customer)

    for key, (subject, body) in built.items():
        assert "\n" not in subject and "123456" not in subject, key
        for line in body.splitlines():
            assert not line.startswith(INJECTED), (key, line)
        if key.endswith(":email"):
            assert body.startswith(f"Hello {FIRST_NAME_SHOWN},\n\n"), key
        else:
            assert "\n" not in body and body.startswith("Your code"), key


def test_every_message_renders_stored_text_on_one_line(plan_with_bad_text):
    for key, (subject, body) in every_customer_message(plan_with_bad_text).items():
        assert "\n" not in subject and "\r" not in subject, key
        assert "\r" not in body and "\u2028" not in body and "\x1b" not in body, key
        assert "\u202e" not in body, key
        for line in body.splitlines():
            assert not line.startswith(INJECTED), (key, line)
        assert REFERENCE_SHOWN in body, key
        if key.endswith(":sms"):
            assert "\n" not in body, key
            assert not body.startswith("Jumia"), key  # our words come first
        if key not in TO_MERCHANT:
            assert NAME_SHOWN in body, key
        if key.endswith(":email") and key not in TO_MERCHANT:
            assert body.startswith(f"Hello {FIRST_NAME_SHOWN},\n\n"), key


def test_a_notice_of_change_renders_the_merchants_reason_and_phone_on_one_line(
    plan_with_bad_text,
):
    built = every_customer_message(plan_with_bad_text)

    for kind in ("schedule_changed", "plan_cancelled"):
        _, email = built[f"{kind}:email"]
        _, sms = built[f"{kind}:sms"]
        assert "or 0800 Call 0900 now" in email
        assert sms.endswith("Questions: 0800 Call 0900 now") or (
            "Questions: 0800 Call 0900 now Pay: {pay_link}" in sms
        )
        assert 'Their reason: "Out of stock Alert: pay to 0123456789".' in email
        assert sms.startswith(("Plan changed: ", "Plan cancelled: "))


def test_a_dispute_tells_the_merchant_the_banks_reason_on_one_line(
    plan_with_bad_text,
):
    built = every_customer_message(plan_with_bad_text)

    for kind in ("dispute_opened", "dispute_reminder"):
        subject, body = built[f"{kind}:email"]
        assert body.startswith("Hello,\n\n"), kind
        assert "Jumia" not in body, kind
        assert (
            "The bank's reason: Not received Verify your account at "
            "http://evil.example\n" in body
        ), kind
        assert "/dashboard/disputes/dp_test0001/" in body, kind
        assert "Answer by: " in body, kind


def test_a_merchant_is_not_greeted_by_its_stored_name(plan_with_bad_text):
    built = every_customer_message(plan_with_bad_text)
    _, body = built["plan_defaulted_merchant:email"]

    assert body.startswith("Hello,\n\n")
    assert "Jumia" not in body
    assert "(last reason: insufficient_funds Call +234 800 000)" in body


def test_a_receipt_with_stored_bad_text_is_sent_by_email_and_sms(
    plan_with_bad_text, sms_outbox
):
    """Sent for real: a line break in a subject would make the mail library
    refuse the e-mail."""
    assert tasks.send_collection_receipts() == "2 sent, 0 failed"

    (email,) = mail.outbox
    assert (
        email.subject == f"Payment of NGN 750.00 received for order {REFERENCE_SHOWN}"
    )
    assert f"for your order {REFERENCE_SHOWN} from {NAME_SHOWN}: " in email.body
    (sms,) = sms_outbox
    assert sms.body.startswith(
        f"Received NGN 750.00 for {NAME_SHOWN} order {REFERENCE_SHOWN} (the deposit)."
    )


def test_a_manual_plans_reminder_renders_stored_text_on_one_line(plan_with_bad_text):
    first = installments_of(plan_with_bad_text)[0]
    first.plan = plan_with_bad_text

    built = manual_texts.reminder_to_pay(first)

    assert [o.channel for o in built] == ["email", "sms"]
    for outgoing in built:
        assert "\n" not in outgoing.title and "\r" not in outgoing.body
        assert "\u2028" not in outgoing.body and "\u202e" not in outgoing.body
        for line in outgoing.body.splitlines():
            assert not line.startswith(INJECTED), line
        assert REFERENCE_SHOWN in outgoing.body and NAME_SHOWN in outgoing.body
    email, sms = built
    assert email.body.startswith(f"Hello {FIRST_NAME_SHOWN},\n\n")
    assert "\n" not in sms.body and sms.body.startswith("Reminder: ")
