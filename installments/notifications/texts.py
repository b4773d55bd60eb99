"""What reminders and receipts say, by e-mail and by SMS.

Each builder returns the `Outgoing` messages of one fact: an e-mail always, an
SMS too when the customer added a mobile number (`Customer.sms_phone`). Amounts
are kobo, shown as naira with `emails.naira`. What a merchant or customer typed
(business name, order reference, first name) goes in through `emails.shop`,
`emails.order` and `emails.hello`: on one line, inside our sentence; an SMS
starts with our words, never with the merchant's.
"""

import re
from dataclasses import dataclass
from datetime import date, datetime

from django.conf import settings
from django.utils import timezone

from payments.gateway.declines import decline_of

from .emails import hello, naira, order, shop
from .models import Message
from .selectors import reminder_subject

Kind = Message.Kind
Channel = Message.Channel


@dataclass(frozen=True)
class Outgoing:
    kind: str
    subject: str  # what it is about (Message.subject)
    channel: str
    customer_pk: int
    recipient: str
    title: str
    body: str


def plan_url(plan) -> str:
    return f"{settings.CONSUMER_URL}/account/plans/{plan.public_id}/"


def _both(*, kind, subject, customer, title, email, sms) -> list[Outgoing]:
    made = [
        Outgoing(
            kind, subject, Channel.EMAIL, customer.pk, customer.email, title, email
        )
    ]
    if customer.sms_phone:
        made.append(
            Outgoing(
                kind, subject, Channel.SMS, customer.pk, customer.sms_phone, "", sms
            )
        )
    return made


def _plain(label: str) -> str:
    """ "Visa •••• 4081" as "Visa ending 4081": the bullets are not in the GSM
    alphabet, and one such character makes an SMS cost twice as much."""
    return re.sub(r"\s*•+\s*", " ending ", label).strip()


def _long(day: date | datetime) -> str:
    return f"{day:%A %d %B %Y}"


def _short(day: date | datetime) -> str:
    return f"{day:%d %b %Y}"


def reminder(installment, *, method_label: str | None) -> list[Outgoing]:
    """`installment` with its plan, the plan's customer and merchant loaded;
    `method_label` the method the engine will charge first (None: none)."""
    plan = installment.plan
    customer, merchant = plan.customer, plan.merchant
    amount, due = naira(installment.amount), installment.due_date
    reference = order(plan.order_reference)
    which = f"installment {installment.sequence} of {plan.installment_count}"
    if method_label:
        method_label = _plain(method_label)
        charge = f"We will charge it to {method_label} that day."
        sms_charge = f"will be charged to {method_label} on {_short(due)}"
    else:
        charge = (
            "You have no active payment method on your account: add one before "
            "then, or we cannot collect it."
        )
        sms_charge = f"is due on {_short(due)}; add a payment method"
    return _both(
        kind=Kind.REMINDER,
        subject=reminder_subject(installment),
        customer=customer,
        title=f"{amount} for order {reference} is due on {_long(due)}",
        email=(
            f"{hello(customer)}\n\n"
            f"This is a reminder that {which} ({amount}) of your order "
            f"{reference} from {shop(merchant)} is due on "
            f"{_long(due)}. {charge}\n\n"
            "To pay it now, or to change the card or bank account we charge, open "
            f"your plan:\n{plan_url(plan)}\n"
        ),
        sms=(
            f"Reminder: {amount} ({which}) for {shop(merchant)} order {reference} "
            f"{sms_charge}. Pay now or change method: {plan_url(plan)}"
        ),
    )


def account_url() -> str:
    """Where a customer adds a card or bank account."""
    return f"{settings.CONSUMER_URL}/account/"


def action_required_subject(installment) -> str:
    """`<installment id>_a<attempt>`: one request per hard-declined attempt."""
    return f"{installment.public_id}_a{installment.attempts}"


def action_required(installment) -> list[Outgoing]:
    """`installment` waiting for a payment method (its plan, the plan's customer
    and merchant loaded): why, what to do, and until when (`next_attempt_at`)."""
    plan = installment.plan
    customer, merchant = plan.customer, plan.merchant
    amount, reference = naira(installment.amount), order(plan.order_reference)
    which = f"installment {installment.sequence} of {plan.installment_count}"
    why = decline_of(installment.last_failure_reason).text
    until = timezone.localtime(installment.next_attempt_at)
    return _both(
        kind=Kind.ACTION_REQUIRED,
        subject=action_required_subject(installment),
        customer=customer,
        title=f"Add a payment method to pay for order {reference}",
        email=(
            f"{hello(customer)}\n\n"
            f"We could not collect {which} ({amount}) of your order "
            f"{reference} from {shop(merchant)}: {why}. We "
            "will not charge that payment method again, and there is no other "
            "one on your account that we can charge.\n\n"
            "Please add a card or bank account here; we collect the installment "
            f"as soon as you have added it:\n{account_url()}\n\n"
            f"If no payment method is added by {_long(until)} at "
            f"{until:%H:%M} (Lagos time), your plan will be in default.\n\n"
            f"Your plan: {plan_url(plan)}\n"
        ),
        sms=(
            f"Payment failed: we could not collect {amount} ({which}) for "
            f"{shop(merchant)} order {reference}: {why}. Add a card or bank account "
            f"by {_short(until)}: {account_url()}"
        ),
    )


def collection_receipt(
    collection, *, plan, what: str, remaining: int
) -> list[Outgoing]:
    """`collection` a ledger collection (its customer loaded); `what` says what
    it paid ("the deposit", "installment 2 of 3"); `remaining` what is left."""
    customer, amount = collection.customer, naira(collection.amount)
    merchant_name, reference = shop(plan.merchant), order(plan.order_reference)
    when = timezone.localtime(collection.created_at)
    # The balance when the receipt is written (the sweep runs every few
    # minutes, so normally just after the payment), not a balance of the past.
    left = (
        f"Left to pay on your plan now: {naira(remaining)}."
        if remaining
        else "Your plan is now paid in full."
    )
    sms_left = f"Balance now {naira(remaining)}." if remaining else "Plan paid in full."
    return _both(
        kind=Kind.RECEIPT_COLLECTION,
        subject=collection.reference,
        customer=customer,
        title=f"Payment of {amount} received for order {reference}",
        email=(
            f"{hello(customer)}\n\n"
            f"We received {amount} on {_long(when)} for your order "
            f"{reference} from {merchant_name}: {what}.\n\n"
            f"{left}\nReceipt number: {collection.processor_reference} (quote it if "
            f"you contact {merchant_name} about this payment)\n\n"
            f"Your plan: {plan_url(plan)}\n"
        ),
        sms=(
            f"Received {amount} for {merchant_name} order {reference} ({what}). "
            f"{sms_left} Receipt {collection.processor_reference}"
        ),
    )


def _refund_sentences(refund) -> str:
    returned = getattr(refund, "amount_returned", None)
    reduced = getattr(refund, "amount_reduced", None)
    if returned is None or reduced is None:
        return (
            "It comes off what you still owe first; anything you already paid "
            "beyond that goes back to the card or bank account you paid with."
        )
    sentences = []
    if reduced:
        sentences.append(f"Your unpaid installments are {naira(reduced)} lower.")
    if returned:
        sentences.append(
            f"{naira(returned)} goes back to the card or bank account you paid "
            "with; banks usually show it within 10 working days."
        )
    return " ".join(sentences)


def refund_receipt(refund) -> list[Outgoing]:
    """`refund`: see services.refund_receipt_send for what it must have."""
    plan = refund.plan
    customer, merchant = plan.customer, plan.merchant
    amount, reference = naira(refund.amount), order(plan.order_reference)
    return _both(
        kind=Kind.RECEIPT_REFUND,
        subject=refund.public_id,
        customer=customer,
        title=f"Refund of {amount} for order {reference}",
        email=(
            f"{hello(customer)}\n\n"
            f"{shop(merchant)} refunded {amount} of your order "
            f"{reference}. {_refund_sentences(refund)}\n\n"
            f"Refund number: {refund.public_id}\n\nYour plan: {plan_url(plan)}\n"
        ),
        sms=(
            f"Refund: {shop(merchant)} refunded {amount} of order {reference}. "
            f"Refund {refund.public_id}. {plan_url(plan)}"
        ),
    )
