"""The "payment due" notice of a manual plan (DESIGN section 17): an
installment the engine does not charge, because its plan was finished at
checkout without a card or mandate and its customer still has none, is due
(on its due date) or still unpaid (on each retry day). Beside texts.py, which
writes every other message, by the same rules: e-mail always, SMS when the
customer has a mobile number, what people typed through `shop`, `order` and
`hello`.
"""

from datetime import datetime

from django.utils import timezone

from .emails import hello, naira, order, shop
from .models import Message
from .outgoing import PAY_LINK, Outgoing, both, long_day, short_day
from .texts import attempt_subject


def payment_due(
    claim, *, customer, merchant, deadline: datetime, first: bool
) -> list[Outgoing]:
    """`claim`'s installment is due (`first`: its due date) or still unpaid
    (a retry day); the plan defaults if it is not paid by `deadline`."""
    deadline = timezone.localtime(deadline)
    amount, reference = naira(claim.amount), order(claim.order_reference)
    which = f"installment {claim.sequence} of {claim.installment_count}"
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
