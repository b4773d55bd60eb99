"""The "payment due" notice of a manual plan (DESIGN section 17): an
installment the engine does not charge, because its plan was finished at
checkout without a card or mandate and its customer still has none, is due
(on its due date) or still unpaid (on each retry day). Beside texts.py, which
writes every other message, by the same rules: e-mail always, SMS when the
customer has a mobile number, what people typed through `shop`, `order` and
`hello`.
"""

from datetime import datetime

from django.conf import settings
from django.utils import timezone

from .emails import hello, naira, order, shop
from .models import Message
from .texts import Outgoing, email_and_sms, _long, _short, attempt_subject


def pay_url(claim) -> str:
    """Where the customer pays the installment.

    Until pay links (`/pay/<token>`, DESIGN section 17) exist, the plan's page
    under /account/, where the customer signs in and pays early; the pay link
    takes its place here."""
    return f"{settings.CONSUMER_URL}/account/plans/{claim.plan_public_id}/"


def payment_due(
    claim, *, customer, merchant, deadline: datetime, first: bool
) -> list[Outgoing]:
    """`claim`'s installment is due (`first`: its due date) or still unpaid
    (a retry day); the plan defaults if it is not paid by `deadline`."""
    deadline = timezone.localtime(deadline)
    amount, reference = naira(claim.amount), order(claim.order_reference)
    which = f"installment {claim.sequence} of {claim.installment_count}"
    link = pay_url(claim)
    opening = (
        f"{which} ({amount}) of your order {reference} from {shop(merchant)} is "
        "due today"
        if first
        else f"{which} ({amount}) of your order {reference} from "
        f"{shop(merchant)} has not been paid yet"
    )
    return email_and_sms(
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
            "on this plan: pay it yourself by bank transfer, USSD or card here:\n"
            f"{link}\n\n"
            f"If it is not paid by {_long(deadline)} at {deadline:%H:%M} (Lagos "
            "time), your plan will be in default.\n"
        ),
        sms=(
            f"Payment due: {amount} ({which}) for {shop(merchant)} order "
            f"{reference}. Pay by {_short(deadline)} {deadline:%H:%M} or the plan "
            f"defaults: {link}"
        ),
    )
