"""What every message says, by e-mail and by SMS: reminders, receipts, and what
a collection did (failed, collected part, defaulted). A customer's password-reset
link and one-time sign-in code are written in signin/texts.py, over `Outgoing`
and `email_and_sms` here.

Each builder returns the `Outgoing` messages of one fact: an e-mail always, an
SMS too when the customer added a mobile number (`Customer.sms_phone`); the
merchant's notice of a default is an e-mail only. Amounts
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

from config.text import one_line
from payments.gateway.declines import decline_of

from .emails import REASON_LIMIT, hello, naira, order, shop
from .models import Message
from .selectors import reminder_subject

Kind = Message.Kind
Channel = Message.Channel


@dataclass(frozen=True)
class Outgoing:
    kind: str
    subject: str  # what it is about (Message.subject)
    channel: str
    customer_pk: int | None  # None: to the merchant of `merchant_pk`
    recipient: str
    title: str
    body: str
    merchant_pk: int | None = None


def plan_url(plan) -> str:
    return f"{settings.CONSUMER_URL}/account/plans/{plan.public_id}/"


def email_and_sms(*, kind, subject, customer, title, email, sms) -> list[Outgoing]:
    """One message to `customer` by e-mail, and by SMS when they added a
    mobile number."""
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
    `method_label` the method the engine will charge first (None: none; a
    manual plan's customer then gets `manual_texts.reminder_to_pay`)."""
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
    return email_and_sms(
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
    return email_and_sms(
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


def attempt_subject(claim) -> str:
    """`<installment id>_a<attempt>`: what one attempt of a collection claim
    (collection/claims.py) told, once per attempt."""
    return f"{claim.public_id}_a{claim.attempt}"


def _which(claim) -> str:
    return f"installment {claim.sequence} of {claim.installment_count}"


def _attempts(claim) -> str:
    return f"{claim.attempt} attempt{'s' if claim.attempt != 1 else ''}"


def collection_failed(
    claim, *, customer, merchant, reason: str, when: datetime
) -> list[Outgoing]:
    """`claim`'s attempt failed for `reason` and is tried again at `when`."""
    when, amount = timezone.localtime(when), naira(claim.amount)
    reference, which = order(claim.order_reference), _which(claim)
    return email_and_sms(
        kind=Kind.COLLECTION_FAILED,
        subject=attempt_subject(claim),
        customer=customer,
        title=f"We could not collect your installment for order {reference}",
        email=(
            f"{hello(customer)}\n\n"
            f"We tried to collect {which} ({amount}) for your order {reference} "
            f"from {shop(merchant)}, but {decline_of(reason).clause}.\n\n"
            f"We will try again on {_long(when)} at {when:%H:%M} (Lagos time). "
            "Please make sure the payment method has enough funds, or add another "
            f"one at {account_url()} before then.\n"
        ),
        sms=(
            f"Payment failed: we could not collect {amount} ({which}) for "
            f"{shop(merchant)} order {reference}: {decline_of(reason).text}. We try "
            f"again on {_short(when)} at {when:%H:%M}; to add a card or bank "
            f"account: {account_url()}"
        ),
    )


def partially_collected(
    claim, *, customer, merchant, collected: int, when: datetime
) -> list[Outgoing]:
    """The last retry of `claim` could not take the whole installment, its
    partial debit (the message's subject) took `collected`, the rest is tried
    at `when` (DESIGN section 15)."""
    when, rest = timezone.localtime(when), naira(claim.amount - collected)
    reference, which = order(claim.order_reference), _which(claim)
    return email_and_sms(
        kind=Kind.PARTIALLY_COLLECTED,
        subject=claim.partial_debit_reference,
        customer=customer,
        title=f"We collected part of your installment for order {reference}",
        email=(
            f"{hello(customer)}\n\n"
            f"We could not collect all of {which} ({naira(claim.amount)} still "
            f"owed) for your order {reference} from {shop(merchant)}, so we "
            f"collected {naira(collected)} of it.\n\n"
            f"The rest, {rest}, is the last try: we will collect it on "
            f"{_long(when)} at {when:%H:%M} (Lagos time). You can pay it before "
            f"then at {account_url()}; if it cannot be collected then, your plan "
            "will be in default.\n"
        ),
        sms=(
            f"Part paid: we collected {naira(collected)} of {naira(claim.amount)} "
            f"({which}) for {shop(merchant)} order {reference}. The rest, {rest}, "
            f"is the last try, on {_short(when)} at {when:%H:%M}; pay it before "
            f"then: {account_url()}"
        ),
    )


def plan_defaulted(claim, *, customer, merchant, reason: str) -> list[Outgoing]:
    """`claim`'s last attempt failed for `reason`: the plan is in default."""
    merchant_name, reference = shop(merchant), order(claim.order_reference)
    amount = naira(claim.amount)
    return email_and_sms(
        kind=Kind.PLAN_DEFAULTED,
        subject=attempt_subject(claim),
        customer=customer,
        title=f"Your payment plan for order {reference} is in default",
        email=(
            f"{hello(customer)}\n\n"
            f"Installment {claim.sequence} ({amount}) of your order {reference} "
            f"from {merchant_name} could not be collected after {_attempts(claim)}: "
            f"the last time {decline_of(reason).clause}. Your payment plan is now "
            "in default and no further installments will be collected "
            "automatically.\n\n"
            f"Please contact {merchant_name} to settle the balance.\n"
        ),
        sms=(
            f"Plan in default: {amount} ({_which(claim)}) for {merchant_name} order "
            f"{reference} could not be collected after {_attempts(claim)}. No more "
            f"payments will be collected; contact {merchant_name} to settle."
        ),
    )


def plan_defaulted_to_merchant(claim, *, merchant, reason: str) -> list[Outgoing]:
    """To the merchant, by e-mail only: `claim`'s plan defaulted."""
    plan_id, reference = claim.plan_public_id, order(claim.order_reference)
    body = (
        "Hello,\n\n"
        f"Installment {claim.sequence} ({naira(claim.amount)}) of payment plan "
        f"{plan_id} for order {reference} (customer {claim.customer_public_id}) "
        f"could not be collected after {_attempts(claim)} (last reason: "
        f"{one_line(reason, REASON_LIMIT)}). The plan is now defaulted: no further "
        "installments will be collected, and your customer has been told to "
        "contact you.\n\n"
        f"The plan: {settings.BASE_URL}/dashboard/plans/{plan_id}/\n"
    )
    return [
        Outgoing(
            Kind.PLAN_DEFAULTED_MERCHANT,
            attempt_subject(claim),
            Channel.EMAIL,
            None,
            merchant.email,
            f"Payment plan {plan_id} (order {reference}) defaulted",
            body,
            merchant_pk=merchant.pk,
        )
    ]


def failed_attempt(
    claim, *, customer, merchant, reason: str, next_attempt_at: datetime | None
) -> list[Outgoing]:
    """The messages of `claim`'s failed attempt: the retry's to the customer,
    or (`next_attempt_at` None) the default's to the customer and the merchant."""
    if next_attempt_at is not None:
        return collection_failed(
            claim,
            customer=customer,
            merchant=merchant,
            reason=reason,
            when=next_attempt_at,
        )
    return [
        *plan_defaulted(claim, customer=customer, merchant=merchant, reason=reason),
        *plan_defaulted_to_merchant(claim, merchant=merchant, reason=reason),
    ]


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
    return email_and_sms(
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
    return email_and_sms(
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
