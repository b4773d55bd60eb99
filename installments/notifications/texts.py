"""What every message says, by e-mail and by SMS: reminders, receipts, what
a collection did (failed, collected part, defaulted), and a new pay link.

Each builder returns the `Outgoing` messages (outgoing.py) of one fact: an
e-mail always, an SMS too when the customer added a mobile number
(`Customer.sms_phone`); the merchant's notice of a default is an e-mail only.
Amounts are kobo, shown as naira with `emails.naira`. What a merchant or customer typed
(business name, order reference, first name) goes in through `emails.shop`,
`emails.order` and `emails.hello`: on one line, inside our sentence; an SMS
starts with our words, never with the merchant's.

A reminder or notice that asks the customer to pay carries the plan's pay link
(DESIGN section 17) as `PAY_LINK`, a mark the message's own link replaces when
it is sent (sending.py): the recorded body never holds the link's token. The
link is made when the message is recorded, one per message (both channels),
for the plan `Outgoing.pay_plan_pk` names, or is `Outgoing.pay_link_pk`.
"""

from datetime import datetime

from django.conf import settings
from django.utils import timezone

from config.text import one_line
from payments.gateway.declines import decline_of

from .emails import REASON_LIMIT, hello, installment_of, naira, order, shop
from .models import Message
from .outgoing import (
    PAY_LINK,
    Outgoing,
    account_url,
    both,
    long_day,
    plain,
    plan_url,
    short_day,
)
from .selectors import reminder_subject

Kind = Message.Kind
Channel = Message.Channel


def reminder(installment, *, method_label: str | None) -> list[Outgoing]:
    """`installment` with its plan, the plan's customer and merchant loaded;
    `method_label` the method the engine will charge first (None: none; a
    manual plan's customer then gets `manual_texts.reminder_to_pay`)."""
    plan = installment.plan
    customer, merchant = plan.customer, plan.merchant
    amount, due = naira(installment.amount), installment.due_date
    reference = order(plan.order_reference)
    which = installment_of(installment.sequence, plan.installment_count)
    if method_label:
        method_label = plain(method_label)
        charge = f"We will charge it to {method_label} that day."
        sms_charge = f"will be charged to {method_label} on {short_day(due)}"
    else:
        charge = (
            "You have no active payment method on your account: add one before "
            "then, or we cannot collect it."
        )
        sms_charge = f"is due on {short_day(due)}; add a payment method"
    return both(
        kind=Kind.REMINDER,
        subject=reminder_subject(installment),
        customer=customer,
        title=f"{amount} for order {reference} is due on {long_day(due)}",
        email=(
            f"{hello(customer)}\n\n"
            f"This is a reminder that {which} ({amount}) of your order "
            f"{reference} from {shop(merchant)} is due on "
            f"{long_day(due)}. {charge}\n\n"
            "To pay it now, by card, bank transfer or USSD, without signing in "
            f"(the link works for 7 days):\n{PAY_LINK}\n\n"
            "To change the card or bank account we charge, open your plan:\n"
            f"{plan_url(plan)}\n"
        ),
        sms=(
            f"Reminder: {amount} ({which}) for {shop(merchant)} order {reference} "
            f"{sms_charge}. Pay now: {PAY_LINK}"
        ),
        pay_plan_pk=plan.pk,
    )


def action_required_subject(installment) -> str:
    """`<installment id>_a<attempt>`: one request per hard-declined attempt."""
    return f"{installment.public_id}_a{installment.attempts}"


def action_required(installment) -> list[Outgoing]:
    """`installment` waiting for a payment method (its plan, the plan's customer
    and merchant loaded): why, what to do, and until when (`next_attempt_at`)."""
    plan = installment.plan
    customer, merchant = plan.customer, plan.merchant
    amount, reference = naira(installment.amount), order(plan.order_reference)
    which = installment_of(installment.sequence, plan.installment_count)
    why = decline_of(installment.last_failure_reason).text
    until = timezone.localtime(installment.next_attempt_at)
    return both(
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
            "Pay it now, by card, bank transfer or USSD, without signing in "
            f"(the link works for 7 days):\n{PAY_LINK}\n\n"
            "Or add a card or bank account here; we collect the installment "
            f"as soon as you have added it:\n{account_url()}\n\n"
            f"If it is not paid and no payment method is added by {long_day(until)} at "
            f"{until:%H:%M} (Lagos time), your plan will be in default.\n\n"
            f"Your plan: {plan_url(plan)}\n"
        ),
        sms=(
            f"Payment failed: we could not collect {amount} ({which}) for "
            f"{shop(merchant)} order {reference}: {why}. Pay by {short_day(until)}: "
            f"{PAY_LINK}"
        ),
        pay_plan_pk=plan.pk,
    )


def attempt_subject(claim) -> str:
    """`<installment id>_a<attempt>`: what one attempt of a collection claim
    (collection/claims.py) told, once per attempt."""
    return f"{claim.public_id}_a{claim.attempt}"


def _which(claim) -> str:
    return installment_of(claim.sequence, claim.installment_count)


def _attempts(claim) -> str:
    return f"{claim.attempt} attempt{'s' if claim.attempt != 1 else ''}"


def collection_failed(
    claim, *, customer, merchant, reason: str, when: datetime
) -> list[Outgoing]:
    """`claim`'s attempt failed for `reason` and is tried again at `when`."""
    when, amount = timezone.localtime(when), naira(claim.amount)
    reference, which = order(claim.order_reference), _which(claim)
    return both(
        kind=Kind.COLLECTION_FAILED,
        subject=attempt_subject(claim),
        customer=customer,
        title=f"We could not collect your installment for order {reference}",
        email=(
            f"{hello(customer)}\n\n"
            f"We tried to collect {which} ({amount}) for your order {reference} "
            f"from {shop(merchant)}, but {decline_of(reason).clause}.\n\n"
            f"We will try again on {long_day(when)} at {when:%H:%M} (Lagos time). "
            "Please make sure the payment method has enough funds, or add another "
            f"one at {account_url()} before then.\n\n"
            "Or pay it now, by card, bank transfer or USSD, without signing in "
            f"(the link works for 7 days):\n{PAY_LINK}\n"
        ),
        sms=(
            f"Payment failed: we could not collect {amount} ({which}) for "
            f"{shop(merchant)} order {reference}: {decline_of(reason).text}. We try "
            f"again on {short_day(when)} at {when:%H:%M}. Pay now: {PAY_LINK}"
        ),
        pay_plan_pk=claim.plan_pk,
    )


def partially_collected(
    claim, *, customer, merchant, collected: int, when: datetime
) -> list[Outgoing]:
    """The last retry of `claim` could not take the whole installment, its
    partial debit (the message's subject) took `collected`, the rest is tried
    at `when` (DESIGN section 15)."""
    when, rest = timezone.localtime(when), naira(claim.amount - collected)
    reference, which = order(claim.order_reference), _which(claim)
    return both(
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
            f"{long_day(when)} at {when:%H:%M} (Lagos time). You can pay it before "
            "then, by card, bank transfer or USSD, without signing in (the link "
            f"works for 7 days):\n{PAY_LINK}\n\nor from your account at "
            f"{account_url()}. If it cannot be collected then, your plan will be "
            "in default.\n"
        ),
        sms=(
            f"Part paid: we collected {naira(collected)} of {naira(claim.amount)} "
            f"({which}) for {shop(merchant)} order {reference}. The rest, {rest}, "
            f"is the last try, on {short_day(when)} at {when:%H:%M}; pay it before "
            f"then: {PAY_LINK}"
        ),
        pay_plan_pk=claim.plan_pk,
    )


def plan_defaulted(claim, *, customer, merchant, reason: str) -> list[Outgoing]:
    """`claim`'s last attempt failed for `reason`: the plan is in default."""
    merchant_name, reference = shop(merchant), order(claim.order_reference)
    amount = naira(claim.amount)
    return both(
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
            "See what is owed, without signing in (the link works for 7 days):"
            f"\n{PAY_LINK}\n\n"
            f"Contact {merchant_name} to settle the balance.\n"
        ),
        sms=(
            f"Plan in default: {amount} ({_which(claim)}) for {merchant_name} order "
            f"{reference} could not be collected after {_attempts(claim)}. No more "
            f"automatic payments. What is owed: {PAY_LINK}"
        ),
        pay_plan_pk=claim.plan_pk,
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
    return both(
        kind=Kind.RECEIPT_COLLECTION,
        subject=collection.reference,
        customer=customer,
        title=f"Payment of {amount} received for order {reference}",
        email=(
            f"{hello(customer)}\n\n"
            f"We received {amount} on {long_day(when)} for your order "
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
    return both(
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


def pay_link(link, *, plan) -> list[Outgoing]:
    """The new pay link `link` a customer asked for on the page of an old one
    ("send me a new link"): to the e-mail and phone on file for `plan` (its
    customer and merchant loaded)."""
    customer, reference = plan.customer, order(plan.order_reference)
    return both(
        kind=Kind.PAY_LINK,
        subject=link.public_id,
        customer=customer,
        title=f"Your new link to pay for order {reference}",
        email=(
            f"{hello(customer)}\n\n"
            "Here is the new link you asked for, to pay for your order "
            f"{reference} from {shop(plan.merchant)} by card, bank transfer or "
            f"USSD, without signing in. It works for 7 days:\n{PAY_LINK}\n\n"
            "If you did not ask for it, you can ignore this message: the link "
            "only lets someone pay what is owed.\n"
        ),
        sms=(
            f"Your new link to pay {shop(plan.merchant)} order {reference} "
            f"(7 days): {PAY_LINK}"
        ),
        pay_link_pk=link.pk,
    )
