"""Sending reminders and receipts: record each message, send it outside any
transaction, record what became of it; the sweep sends again whatever a sender
left unrecorded (docs/operations.md, "Customer messages").

A claim is one INSERT ... ON CONFLICT DO NOTHING of every message of a chunk
under a fresh claim token; the rows that carry the token afterwards are this
run's to send, each held by a lease (`MESSAGE_LEASE_SECONDS`). A concurrent
run's insert waits for ours to commit and then skips those rows, so two runs
never send one message twice; a rerun finds them recorded and sends nothing.

Each message is recorded as soon as the provider answered it. A sender that
dies (a killed worker, a task lost with the broker) leaves its unrecorded
messages `sending`: once their lease has run out, `messages_send_due` (the
sweep, every minute) takes them again under a new lease, at most
`MAX_ATTEMPTS` times and for `GIVE_UP_AFTER`. A message recorded `sent` is
never sent again; the one a sender died on between the provider's answer and
its record is sent twice. A failure is recorded and not retried, except when
the provider was certainly not reached (nothing was sent): that message stays
`sending` and the sweep tries it again.

A refund's receipt is recorded in the refund's own transaction
(`refund_receipt_send`) and sent after its commit, so it exists even when the
task that sends it is lost.
"""

import logging
import uuid
from dataclasses import dataclass
from datetime import date, timedelta
from time import monotonic

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from config.api.queue import enqueue_on_commit
from config.sms import SmsError, SmsMessage, SmsNotSent, sms_backend

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
# The sweep takes a message again at most this many times in all, and gives up
# on one this old: a reminder or receipt days late misleads more than it helps.
MAX_ATTEMPTS = 5
GIVE_UP_AFTER = timedelta(hours=48)
SEND_DUE_TASK = "installments.notifications.tasks.send_due_messages"

Status = Message.Status


def lease() -> timedelta:
    """How long a sender holds the messages it took (longer than any task
    runs: django-q2 stops one at its `timeout`)."""
    return timedelta(seconds=settings.MESSAGE_LEASE_SECONDS)


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


def _rows(outgoing: list[Outgoing], *, token, attempts: int, until) -> list:
    return [
        Message(
            kind=item.kind,
            subject=item.subject,
            channel=item.channel,
            customer_id=item.customer_pk,
            recipient=item.recipient,
            title=item.title,
            body=item.body,
            claim=token,
            attempts=attempts,
            lease_expires_at=until,
        )
        for item in outgoing
    ]


def messages_claim(outgoing: list[Outgoing]) -> list[Message]:
    """Insert a row per message, held by this run's lease; the rows this call
    inserted (those already recorded, by an earlier or a concurrent run, are
    skipped)."""
    if not outgoing:
        return []
    token = uuid.uuid4()
    until = timezone.now() + lease()
    Message.objects.bulk_create(
        _rows(outgoing, token=token, attempts=1, until=until), ignore_conflicts=True
    )
    return list(Message.objects.filter(claim=token).order_by("id"))


def messages_record(outgoing: list[Outgoing]) -> list[int]:
    """Insert a row per message in the caller's transaction, due at once and
    held by nobody: whoever claims it first (the task enqueued after the
    commit, or the sweep) sends it. The ids of the rows inserted."""
    if not outgoing:
        return []
    token = uuid.uuid4()
    Message.objects.bulk_create(
        _rows(outgoing, token=token, attempts=0, until=timezone.now()),
        ignore_conflicts=True,
    )
    return list(Message.objects.filter(claim=token).values_list("id", flat=True))


def _give_up(due, now) -> None:
    """Record as failed the due messages taken too often or too old."""
    Message.transition_where(
        due.filter(attempts__gte=MAX_ATTEMPTS),
        Status.FAILED,
        at=now,
        same={
            "lease_expires_at": None,
            "error": f"Not recorded after {MAX_ATTEMPTS} tries: it may or may not "
            "have been sent.",
        },
    )
    Message.transition_where(
        due.filter(created_at__lt=now - GIVE_UP_AFTER),
        Status.FAILED,
        at=now,
        same={
            "lease_expires_at": None,
            "error": "Not sent within 48 hours: too late to send.",
        },
    )


def _claim_due(limit: int, pks: list[int] | None = None) -> list[Message]:
    """Take up to `limit` messages whose lease has run out (only `pks`, when
    given) under a new lease. Rows another sender is taking are skipped; the
    UPDATE's own condition keeps two senders from taking one row where row
    locks do not exist (SQLite)."""
    now = timezone.now()
    token = uuid.uuid4()
    due = Message.objects.filter(status=Status.SENDING, lease_expires_at__lte=now)
    if pks is not None:
        due = due.filter(pk__in=pks)
    with transaction.atomic():
        ids = list(
            due.select_for_update(skip_locked=True)
            .order_by("lease_expires_at", "id")
            .values_list("id", flat=True)[:limit]
        )
        if not ids:
            return []
        due = due.filter(id__in=ids)
        _give_up(due, now)
        due.update(
            claim=token, attempts=F("attempts") + 1, lease_expires_at=now + lease()
        )
    return list(Message.objects.filter(claim=token).order_by("id"))


def _sent(message: Message, provider_id: str) -> None:
    # A success counts even from a sender whose lease ran out.
    Message.transition_where(
        Message.objects.filter(pk=message.pk),
        Status.SENT,
        same={"provider_id": provider_id, "error": "", "lease_expires_at": None},
    )


def _failed(message: Message, error: str, *, unsent: bool) -> None:
    """Only while the row is still this sender's (a sweep may have taken it
    over after the lease). Not sent for sure: left `sending` for the sweep."""
    mine = Message.objects.filter(pk=message.pk, claim=message.claim)
    if unsent:
        mine.filter(status=Status.SENDING).update(error=error[:255])
    else:
        Message.transition_where(
            mine, Status.FAILED, same={"error": error[:255], "lease_expires_at": None}
        )
    logger.warning("%s not sent: %s", message, error)


def _sms_sender():
    """`send(message) -> (provider id, error, unsent)`."""
    try:
        backend = sms_backend()
    except ImproperlyConfigured as error:
        logger.error("SMS_URL is not usable: %s", error)
        why = str(error)[:255]
        return lambda message: ("", why, False)

    def send(message: Message):
        try:
            return (
                backend.send(SmsMessage(to=message.recipient, body=message.body)),
                "",
                False,
            )
        except SmsNotSent as error:
            return "", str(error), True
        except SmsError as error:
            return "", str(error), False

    return send


def messages_deliver(claimed: list[Message]) -> Tally:
    """Send the claimed messages one by one (never inside a transaction),
    recording each as sent or failed, with the reason, as soon as it is known.
    Stops before its lease could run out: the rest is the sweep's."""
    tally = Tally()
    if not claimed:
        return tally
    started, held = monotonic(), lease().total_seconds() / 2
    mails = [m for m in claimed if m.channel == Message.Channel.EMAIL]
    texts_ = [m for m in claimed if m.channel == Message.Channel.SMS]

    def record(message: Message, provider_id: str, error: str, unsent: bool):
        if error:
            _failed(message, error, unsent=unsent)
            tally.failed += 1
        else:
            _sent(message, provider_id)
            tally.sent += 1

    if mails:
        with emails.one_by_one() as send:
            for message in mails:
                if monotonic() - started > held:
                    return tally
                outcome = send(
                    message.title,
                    message.body,
                    message.recipient,
                    f"message-{message.pk}",
                )
                record(message, "", outcome.error, outcome.unsent)
    if texts_:
        send_sms = _sms_sender()
        for message in texts_:
            if monotonic() - started > held:
                return tally
            record(message, *send_sms(message))
    return tally


def messages_send_due(
    *, pks: list[int] | None = None, budget_seconds: float = BUDGET_SECONDS
) -> Tally:
    """Send the messages no sender holds (only `pks`, when given): those
    recorded in a transaction and not sent yet, those whose sender died, those
    the provider could not be reached for. Safe to run in any number of
    workers at once."""
    tally, started = Tally(), monotonic()
    while claimed := _claim_due(CHUNK, pks):
        tally.add(messages_deliver(claimed))
        if monotonic() - started > budget_seconds:
            tally.more = True
            break
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

    Call it when a refund is processed, inside the transaction that records
    it. `refund` may be any object with:

        public_id        str, the refund's id ("rf_..."), the message's subject
        amount           int, kobo refunded (reduced and returned together)
        currency         str, "NGN"
        plan             a PaymentPlan (its order_reference, customer, merchant)

    and optionally `amount_returned` and `amount_reduced` (kobo): with both, the
    receipt says how much goes back in money and how much came off unpaid
    installments; without, it says both may happen.

    The messages are recorded now, in the caller's transaction (a refund
    processed twice records them once), and sent by a task enqueued after the
    commit; the sweep sends them if that task is lost. The caller never waits
    on the mail server or the SMS provider.
    """
    pks = messages_record(texts.refund_receipt(refund))
    if pks:
        enqueue_on_commit(SEND_DUE_TASK, pks, task_name="send-refund-receipt")


@dataclass(frozen=True)
class RefundFacts:
    """What the receipt task got of a refund before receipts were recorded in
    the refund's transaction (plain data through the queue)."""

    public_id: str
    amount: int
    currency: str
    plan: PaymentPlan
    amount_returned: int | None = None
    amount_reduced: int | None = None


def refund_receipt_deliver(facts: dict) -> Tally:
    """A receipt task queued by the version before this one (still in a queue
    at the upgrade): claims and sends as it did."""
    plan = PaymentPlan.objects.select_related("customer", "merchant").get(
        pk=facts["plan_pk"]
    )
    refund = RefundFacts(
        **{key: value for key, value in facts.items() if key != "plan_pk"}, plan=plan
    )
    return messages_deliver(messages_claim(texts.refund_receipt(refund)))
