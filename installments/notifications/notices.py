"""Notices of change (DESIGN section 18): what a customer is told when their
merchant changes what they owe or when: a moved due date, a refund that takes
something off the unpaid installments (`schedule_changed`), a cancellation
(`plan_cancelled`). Each gives the new schedule (every unpaid installment, its
amount and date, and the total still owed) or says nothing more will be
collected, says what changed, and how to reach the merchant. Beside texts.py,
by the same rules: e-mail always, SMS when the customer has a mobile number,
what people typed (names, references, a reason, the merchant's contact) on one
line, our words first in an SMS, the pay link (`PAY_LINK`) only while the plan
is active and something is left to pay.
"""

from dataclasses import dataclass
from datetime import date

from config.text import one_line

from ..plans.models import PaymentPlan
from .emails import REASON_LIMIT, hello, installment_of, naira, order, shop
from .models import Message
from .outgoing import PAY_LINK, Outgoing, both, long_day, plan_url, short_day

Kind = Message.Kind
EMAIL_LIMIT = 254
PHONE_LIMIT = 20


@dataclass(frozen=True)
class Due:
    """One unpaid installment of the schedule after the change."""

    sequence: int
    amount: int  # kobo still owed on it
    due_date: date


@dataclass(frozen=True)
class Change:
    """What changed, in our words: a sentence of the e-mail and the shorter
    clause of the SMS (after "Plan changed: ")."""

    email: str
    sms: str


def contact(merchant, *, sms: bool = False) -> str:
    """How the customer reaches the merchant: its support address (else the
    account's), and its support phone when it gave one (an SMS names only the
    phone, when there is one: its reader can call it from the message)."""
    email = one_line(merchant.support_email or merchant.email, EMAIL_LIMIT)
    phone = one_line(merchant.support_phone, PHONE_LIMIT)
    if phone:
        return phone if sms else f"{email} or {phone}"
    return email


def reason(text: str) -> str:
    """The merchant's reason, as a sentence of ours ("" when none)."""
    said = one_line(text, REASON_LIMIT)
    return f' Their reason: "{said}".' if said else ""


def moved(*, sequence: int, count: int, amount: int, old: date, new: date) -> Change:
    which = installment_of(sequence, count)
    return Change(
        email=(
            f"{which.capitalize()} ({naira(amount)}) is now due on "
            f"{long_day(new)} instead of {long_day(old)}. No amount changed."
        ),
        sms=f"{which} moved from {short_day(old)} to {short_day(new)}",
    )


def refunded(*, amount: int, reduced: int, returned: int, why: str) -> Change:
    money = (
        f" {naira(returned)} goes back to the card or bank account you paid "
        "with; you get a receipt when it does."
        if returned
        else ""
    )
    return Change(
        email=(
            f"They refunded {naira(amount)} of your order: "
            f"{naira(reduced)} comes off the installments you still had to pay."
            f"{money}{reason(why)}"
        ),
        sms=f"refund of {naira(amount)}, {naira(reduced)} off what you owe",
    )


def _schedule_lines(unpaid: list[Due], count: int) -> str:
    return "\n".join(
        f"- {installment_of(due.sequence, count)}: {naira(due.amount)} on "
        f"{long_day(due.due_date)}"
        for due in unpaid
    )


def schedule_changed(
    *, plan, subject: str, change: Change, unpaid: list[Due]
) -> list[Outgoing]:
    """`plan` (its customer and merchant loaded) after `change`; `unpaid` its
    installments left to pay, in order; `subject` names the change (the
    reschedule's or the refund's id), one notice each."""
    customer, merchant = plan.customer, plan.merchant
    name, reference = shop(merchant), order(plan.order_reference)
    count, total = plan.installment_count, sum(due.amount for due in unpaid)
    payable = bool(unpaid) and plan.status == PaymentPlan.Status.ACTIVE
    if unpaid:
        schedule = (
            f"What you still pay for order {reference} from {name}:\n"
            f"{_schedule_lines(unpaid, count)}\nTotal still owed: {naira(total)}\n"
        )
        sms_schedule = "Still to pay: " + ", ".join(
            f"{naira(due.amount)} on {short_day(due.due_date)}" for due in unpaid
        )
        sms_schedule += f" (total {naira(total)})."
    else:
        schedule = (
            f"You owe nothing more for order {reference} from {name}: nothing "
            "more will be collected.\n"
        )
        sms_schedule = "Nothing more will be collected."
    pay = (
        "\nTo pay now, by card, bank transfer or USSD, without signing in (the "
        f"link works for 7 days):\n{PAY_LINK}\n"
        if payable
        else ""
    )
    return both(
        kind=Kind.SCHEDULE_CHANGED,
        subject=subject,
        customer=customer,
        title=f"Your payment schedule for order {reference} has changed",
        email=(
            f"{hello(customer)}\n\n"
            f"{name} changed your payment plan for order {reference}. "
            f"{change.email}\n\n{schedule}{pay}\n"
            f"Questions about this change? Contact {name}: {contact(merchant)}\n\n"
            f"Your plan: {plan_url(plan)}\n"
        ),
        sms=(
            f"Plan changed: {change.sms} for {name} order {reference}. "
            f"{sms_schedule} Questions: {contact(merchant, sms=True)}"
            + (f" Pay: {PAY_LINK}" if payable else "")
        ),
        pay_plan_pk=plan.pk if payable else None,
    )


def plan_cancelled(plan, *, cancelled: list[Due]) -> list[Outgoing]:
    """`plan` (its customer and merchant loaded) cancelled by its merchant;
    `cancelled` the installments it left unpaid, now never collected. One
    notice per plan (a plan is cancelled once)."""
    customer, merchant = plan.customer, plan.merchant
    name, reference = shop(merchant), order(plan.order_reference)
    left = sum(due.amount for due in cancelled)
    stopped = (
        f"The {len(cancelled)} installment{'s' if len(cancelled) != 1 else ''} "
        f"you still had to pay ({naira(left)} in all) "
        f"{'are' if len(cancelled) != 1 else 'is'} cancelled. "
        if cancelled
        else ""
    )
    return both(
        kind=Kind.PLAN_CANCELLED,
        subject=plan.public_id,
        customer=customer,
        title=f"Your payment plan for order {reference} is cancelled",
        email=(
            f"{hello(customer)}\n\n"
            f"{name} cancelled your payment plan for order {reference}."
            f"{reason(plan.cancellation_reason)}\n\n"
            f"{stopped}Nothing more will be collected. What you already paid is "
            f"not refunded by the cancellation: ask {name} about a refund.\n\n"
            f"Questions about this change? Contact {name}: {contact(merchant)}\n\n"
            f"Your plan: {plan_url(plan)}\n"
        ),
        sms=(
            f"Plan cancelled: {name} cancelled your plan for order {reference}. "
            "Nothing more will be collected. Questions: "
            f"{contact(merchant, sms=True)}"
        ),
    )
