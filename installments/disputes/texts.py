"""The e-mails a dispute sends its merchant (DESIGN section 19): when it opens
and at each of the processor's reminders, with the deadline. Recorded and swept
like every message (notifications/); what the customer or their bank wrote is
on one line."""

from django.conf import settings
from django.utils import timezone

from config.text import one_line

from ..notifications.emails import REASON_LIMIT, naira, order
from ..notifications.models import Message
from ..notifications.outgoing import Outgoing, long_day
from .models import Dispute

Kind = Message.Kind


def _deadline(dispute: Dispute) -> str:
    due = timezone.localtime(dispute.due_at)
    return f"{long_day(due)} at {due:%H:%M} (Lagos time)"


def _email(dispute: Dispute, *, kind: str, subject: str, title: str, lead: str):
    plan = dispute.plan
    merchant = dispute.merchant
    said = one_line(dispute.reason, REASON_LIMIT)
    body = (
        "Hello,\n\n"
        f"{lead}\n\n"
        f"Dispute: {dispute.public_id}\n"
        f"Payment plan: {plan.public_id} (order {order(plan.order_reference)})\n"
        f"Amount disputed: {naira(dispute.amount)}\n"
        + (f"The bank's reason: {said}\n" if said else "")
        + f"Answer by: {_deadline(dispute)}\n\n"
        f"{naira(dispute.amount_held)} is held from your wallet and the plan "
        "collects nothing until the dispute is resolved. Answer with evidence "
        "(the customer's agreement and payment history are attached for you) "
        "or accept it. A dispute left unanswered past the deadline is lost.\n\n"
        f"The dispute: {settings.BASE_URL}/dashboard/disputes/{dispute.public_id}/\n"
    )
    return [
        Outgoing(
            kind,
            subject,
            Message.Channel.EMAIL,
            None,
            merchant.email,
            title,
            body,
            merchant_pk=merchant.pk,
        )
    ]


def dispute_opened(dispute: Dispute) -> list[Outgoing]:
    plan = dispute.plan
    return _email(
        dispute,
        kind=Kind.DISPUTE_OPENED,
        subject=dispute.public_id,
        title=(
            f"A payment of plan {plan.public_id} (order "
            f"{order(plan.order_reference)}) is disputed: answer by "
            f"{long_day(timezone.localtime(dispute.due_at))}"
        ),
        lead="Your customer's bank disputes a payment of one of your plans.",
    )


def dispute_reminder(dispute: Dispute) -> list[Outgoing]:
    plan = dispute.plan
    return _email(
        dispute,
        kind=Kind.DISPUTE_REMINDER,
        subject=f"{dispute.public_id}_r{dispute.reminders}",
        title=(
            f"Reminder: the dispute of plan {plan.public_id} (order "
            f"{order(plan.order_reference)}) needs your answer"
        ),
        lead="A dispute of one of your plans is still waiting for your answer.",
    )
