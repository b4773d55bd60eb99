"""Sending reminders and receipts: claim each message by inserting its row,
send outside any transaction, record what became of it.

A claim is one INSERT ... ON CONFLICT DO NOTHING of every message of a chunk
under a fresh claim token; the rows that carry the token afterwards are this
run's to send. A concurrent run's insert waits for ours to commit and then
skips those rows, so two runs never send one message twice; a rerun finds them
recorded and sends nothing. Sending happens after the claim committed: a run
that dies in between leaves rows `sending`, which are never sent again (at
most once: a duplicate reminder costs the customer's trust, a missed one only
a nudge).
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import date, timedelta
from time import monotonic

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils import timezone

from config.api.queue import enqueue_on_commit
from config.sms import SmsError, SmsMessage, sms_backend

from .. import emails
from ..models import PaymentPlan
from . import selectors, texts
from .models import Message
from .texts import Outgoing

logger = logging.getLogger("installments.notifications")

CHUNK = 100
# A run stops after this long (well inside the django-q2 task timeout); the
# reminders enqueue their continuation, the receipt sweep's next pass goes on.
BUDGET_SECONDS = 60
# The receipt sweep looks this far back: a cluster down for less than this
# still sends every receipt once it is back.
RECEIPT_LOOKBACK = timedelta(hours=48)


@dataclass
class Tally:
    sent: int = 0
    failed: int = 0
    more: bool = False  # stopped by the time budget with work left

    def add(self, other: "Tally") -> None:
        self.sent += other.sent
        self.failed += other.failed

    def line(self) -> str:
        return f"{self.sent} sent, {self.failed} failed" + (
            " (continuing)" if self.more else ""
        )


def messages_claim(outgoing: list[Outgoing]) -> list[Message]:
    """Insert a row per message; the rows this call inserted (those already
    recorded, by an earlier or a concurrent run, are skipped)."""
    if not outgoing:
        return []
    token = uuid.uuid4()
    Message.objects.bulk_create(
        [
            Message(
                kind=item.kind,
                subject=item.subject,
                channel=item.channel,
                customer_id=item.customer_pk,
                recipient=item.recipient,
                title=item.title,
                body=item.body,
                claim=token,
            )
            for item in outgoing
        ],
        ignore_conflicts=True,
    )
    return list(Message.objects.filter(claim=token).order_by("id"))


def _sms_outcomes(texts_: list[Message]) -> list[tuple[str, str]]:
    """(provider id, error) per SMS."""
    if not texts_:
        return []
    try:
        backend = sms_backend()
    except ImproperlyConfigured as error:
        logger.error("SMS_URL is not usable: %s", error)
        return [("", str(error)[:255])] * len(texts_)
    outcomes = []
    for message in texts_:
        try:
            outcomes.append(
                (backend.send(SmsMessage(to=message.recipient, body=message.body)), "")
            )
        except SmsError as error:
            outcomes.append(("", str(error)[:255]))
    return outcomes


def messages_deliver(claimed: list[Message]) -> Tally:
    """Send the claimed messages (never inside a transaction), then record each
    as sent or failed with the reason."""
    mails = [m for m in claimed if m.channel == Message.Channel.EMAIL]
    texts_ = [m for m in claimed if m.channel == Message.Channel.SMS]
    errors = emails.send_each([(m.title, m.body, m.recipient) for m in mails])
    outcomes = [("", error) for error in errors] + _sms_outcomes(texts_)
    tally = Tally()
    with transaction.atomic():
        for message, (provider_id, error) in zip(mails + texts_, outcomes, strict=True):
            message.provider_id, message.error = provider_id, error
            status = Message.Status.FAILED if error else Message.Status.SENT
            message.transition_to(status, update_fields=["provider_id", "error"])
            if error:
                tally.failed += 1
                logger.warning("%s not sent: %s", message, error)
            else:
                tally.sent += 1
    return tally


def _in_chunks(select, build) -> Tally:
    """Claim and send what `select(after=, limit=)` finds, chunk by chunk, until
    nothing is left or the time budget is spent."""
    tally, after, started = Tally(), 0, monotonic()
    while rows := select(after=after, limit=CHUNK):
        after = rows[-1].pk
        tally.add(messages_deliver(messages_claim(build(rows))))
        if monotonic() - started > BUDGET_SECONDS:
            tally.more = True
            break
    return tally


def reminders_send(*, day: date | None = None, plan_pk: int | None = None) -> Tally:
    """Remind customers of the installments due `REMINDER_DAYS_BEFORE` days
    after `day` (today in Lagos): amount, date, the method that will be charged
    and the link to pay now or change it. Only one plan's, with `plan_pk` (the
    sandbox clock)."""
    due = (day or timezone.localdate()) + timedelta(days=settings.REMINDER_DAYS_BEFORE)

    def build(installments) -> list[Outgoing]:
        labels = selectors.method_labels({i.plan.customer_id for i in installments})
        return [
            item
            for i in installments
            for item in texts.reminder(i, method_label=labels.get(i.plan.customer_id))
        ]

    return _in_chunks(
        lambda **page: selectors.installments_to_remind(due, plan_pk=plan_pk, **page),
        build,
    )


def collection_receipts_send(*, plan: PaymentPlan | None = None) -> Tally:
    """A receipt for every collection of the last `RECEIPT_LOOKBACK` not yet
    receipted: deposits, installments, early payments (only `plan`'s, when
    given: the sandbox clock)."""
    since = timezone.now() - RECEIPT_LOOKBACK

    def build(collections) -> list[Outgoing]:
        described = selectors.collections_described(collections)
        return [
            item
            for c in collections
            if c.pk in described
            for item in texts.collection_receipt(
                c,
                plan=described[c.pk][0],
                what=described[c.pk][1],
                remaining=described[c.pk][2],
            )
        ]

    return _in_chunks(
        lambda **page: selectors.collections_to_receipt(since, plan=plan, **page),
        build,
    )


def action_required_notices_send(*, installment_pks: list[int] | None = None) -> Tally:
    """Ask each customer whose installment waits for a payment method (only
    those of `installment_pks`, when given) to add one, by e-mail and SMS,
    once per hard-declined attempt. Enqueued by the collection engine after
    the commit that made them wait, and swept on a schedule in case that task
    never ran."""
    return _in_chunks(
        lambda **page: selectors.installments_awaiting_method(
            pks=installment_pks, **page
        ),
        lambda installments: [
            item for i in installments for item in texts.action_required(i)
        ],
    )


REFUND_TASK = "installments.notifications.tasks.refund_receipt_deliver"


def refund_receipt_send(refund) -> None:
    """The receipt of a processed refund, by e-mail (and SMS), sent once.

    Call it when a refund is processed, on commit (A2's code or the lead's).
    `refund` may be any object with:

        public_id        str, the refund's id ("rf_..."), the message's subject
        amount           int, kobo refunded (reduced and returned together)
        currency         str, "NGN"
        plan             a PaymentPlan (its order_reference, customer, merchant)

    and optionally `amount_returned` and `amount_reduced` (kobo): with both, the
    receipt says how much goes back in money and how much came off unpaid
    installments; without, it says both may happen.

    The caller never waits on the mail server or the SMS provider: a task
    claims and sends the messages (enqueued now, or after the commit of the
    caller's transaction), so a refund processed twice gets one receipt.
    """
    enqueue_on_commit(
        REFUND_TASK,
        {
            "public_id": refund.public_id,
            "amount": refund.amount,
            "currency": refund.currency,
            "plan_pk": refund.plan.pk,
            "amount_returned": getattr(refund, "amount_returned", None),
            "amount_reduced": getattr(refund, "amount_reduced", None),
        },
    )


@dataclass(frozen=True)
class RefundFacts:
    """What the receipt task gets of a refund (plain data through the queue)."""

    public_id: str
    amount: int
    currency: str
    plan: PaymentPlan
    amount_returned: int | None = None
    amount_reduced: int | None = None


def refund_receipt_deliver(facts: dict) -> Tally:
    plan = PaymentPlan.objects.select_related("customer", "merchant").get(
        pk=facts["plan_pk"]
    )
    refund = RefundFacts(
        **{key: value for key, value in facts.items() if key != "plan_pk"}, plan=plan
    )
    return messages_deliver(messages_claim(texts.refund_receipt(refund)))
