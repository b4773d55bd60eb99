"""What a manual plan's customer is told (DESIGN section 17): their plan was
finished at checkout without a card or mandate and they still have none, so
the engine does not charge its installments. The reminder before the due date
(`reminder_to_pay`, instead of texts.py's `reminder`, which would ask for a
payment method) and the "payment due" notice on the due date and each retry
day (`payment_due`) both say they pay it themselves, from the plan's pay
link (`PAY_LINK`, written in when the message is sent). Beside texts.py,
which writes every other message, by the same rules: e-mail always, SMS when
the customer has a mobile number, what people typed through `shop`, `order`
and `hello`.
"""

from datetime import datetime

from django.utils import timezone

from ..plans.models import PaymentPlan
from .emails import hello, installment_of, naira, order, shop
from .models import Message
from .outgoing import PAY_LINK, Outgoing, both, long_day, short_day
from .selectors import reminder_subject
from .texts import attempt_subject


def pays_by_hand(plan, *, method_label: str | None) -> bool:
    """A manual plan whose customer has no method the engine may charge
    (`method_label` None): they pay each installment themselves."""
    return method_label is None and plan.collection == PaymentPlan.Collection.MANUAL


def reminder_to_pay(installment) -> list[Outgoing]:
    """The reminder `REMINDER_DAYS_BEFORE` days before `installment` is due
    (its plan, the plan's customer and merchant loaded), for a customer who
    `pays_by_hand`."""
    plan = installment.plan
    customer, merchant = plan.customer, plan.merchant
    amount, due = naira(installment.amount), installment.due_date
    reference = order(plan.order_reference)
    which = installment_of(installment.sequence, plan.installment_count)
    return both(
        kind=Message.Kind.REMINDER,
        subject=reminder_subject(installment),
        customer=customer,
        title=f"{amount} for order {reference} is due on {long_day(due)}",
        email=(
            f"{hello(customer)}\n\n"
            f"This is a reminder that {which} ({amount}) of your order "
            f"{reference} from {shop(merchant)} is due on {long_day(due)}. "
            "Nothing is charged automatically on this plan: you pay it yourself, "
            "by bank transfer, USSD or card, without signing in (the link works "
            "for 7 days):\n"
            f"{PAY_LINK}\n\n"
            "You may pay it now or on the due date.\n"
        ),
        sms=(
            f"Reminder: {amount} ({which}) for {shop(merchant)} order {reference} "
            f"is due on {short_day(due)}. Nothing is charged automatically; pay it "
            f"yourself: {PAY_LINK}"
        ),
        pay_plan_pk=plan.pk,
    )


def payment_due(
    claim, *, customer, merchant, deadline: datetime, first: bool
) -> list[Outgoing]:
    """`claim`'s installment is due (`first`: its due date) or still unpaid
    (a retry day); the plan defaults if it is not paid by `deadline`."""
    deadline = timezone.localtime(deadline)
    amount, reference = naira(claim.amount), order(claim.order_reference)
    which = installment_of(claim.sequence, claim.installment_count)
    opening = (
        f"{which} ({amount}) of your order {reference} from {shop(merchant)} is "
        "due today"
        if first
        else f"{which} ({amount}) of your order {reference} from "
        f"{shop(merchant)} has not been paid yet"
    )
    return both(
        kind=Message.Kind.PAYMENT_DUE,
        subject=attempt_subject(claim),
        customer=customer,
        title=(
            f"Pay {amount} for order {reference}"
            + (" today" if first else ": it is overdue")
        ),
        email=(
            f"{hello(customer)}\n\n"
            f"{opening[0].upper()}{opening[1:]}. Nothing is charged automatically "
            "on this plan: pay it yourself by bank transfer, USSD or card, "
            "without signing in (the link works for 7 days):\n"
            f"{PAY_LINK}\n\n"
            f"If it is not paid by {long_day(deadline)} at {deadline:%H:%M} (Lagos "
            "time), your plan will be in default.\n"
        ),
        sms=(
            f"Payment due: {amount} ({which}) for {shop(merchant)} order "
            f"{reference}. Pay by {short_day(deadline)} {deadline:%H:%M} or the plan "
            f"defaults: {PAY_LINK}"
        ),
        pay_plan_pk=claim.plan_pk,
    )
