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

A refund's receipt, and what a collection pass did (a failed attempt, a part
collected, a default: collection/outcomes.py), are recorded in the transaction
that records the fact (`messages_send_on_commit`) and sent after its commit, so
they exist even when the task that sends them is lost.
"""

import logging
from dataclasses import dataclass
from datetime import date, timedelta
from time import monotonic

from django.conf import settings
from django.utils import timezone

from config.api.queue import enqueue_on_commit

from ..plans.models import PaymentPlan
from . import manual_texts, notices, selectors, texts
from .outgoing import Outgoing
from .sending import (
    Tally,
    messages_claim,
    messages_claim_due,
    messages_deliver,
    messages_record,
)

logger = logging.getLogger("installments.notifications")

CHUNK = 100
# A run stops after this long (well inside the django-q2 task timeout); the
# reminders enqueue their continuation, the receipt sweep's next pass goes on.
BUDGET_SECONDS = 60
# The receipt sweep looks this far back: a cluster down for less than this
# still sends every receipt once it is back.
RECEIPT_LOOKBACK = timedelta(hours=48)
SEND_DUE_TASK = "installments.notifications.tasks.send_due_messages"


def messages_send_due(
    *, pks: list[int] | None = None, budget_seconds: float = BUDGET_SECONDS
) -> Tally:
    """Send the messages no sender holds (only `pks`, when given): those
    recorded in a transaction and not sent yet, those whose sender died, those
    the provider could not be reached for. Safe to run in any number of
    workers at once."""
    tally, started = Tally(), monotonic()
    while claimed := messages_claim_due(CHUNK, pks):
        tally.add(messages_deliver(claimed))
        if monotonic() - started > budget_seconds:
            tally.more = True
            break
    return tally


def messages_send_on_commit(outgoing: list[Outgoing], *, task_name: str) -> None:
    """Record `outgoing` in the caller's transaction, the one that records what
    they tell (a refund, a collection's outcomes), and send them after its
    commit. Rolled back with it, they are never sent; a message recorded before
    (a rerun) is not recorded again; the sweep sends those whose task is lost."""
    pks = messages_record(outgoing)
    if pks:
        enqueue_on_commit(SEND_DUE_TASK, pks, task_name=task_name)


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
            for item in _reminder(
                i,
                method_label=labels.get((i.plan.customer_id, i.plan.merchant.livemode)),
            )
        ]

    return _in_chunks(
        lambda **page: selectors.installments_to_remind(due, plan_pk=plan_pk, **page),
        build,
    )


def _reminder(installment, *, method_label: str | None) -> list[Outgoing]:
    """The reminder of `installment`: a manual plan's customer with no method
    to charge is told to pay it themselves, never to add a payment method."""
    if manual_texts.pays_by_hand(installment.plan, method_label=method_label):
        return manual_texts.reminder_to_pay(installment)
    return texts.reminder(installment, method_label=method_label)


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


def schedule_change_notice_send(
    *, plan: PaymentPlan, subject: str, change: notices.Change
) -> None:
    """Tell `plan`'s customer (by e-mail, and SMS to a mobile number) that its
    merchant changed what they owe or when (DESIGN section 18): `change`, and
    the schedule as it is now. Call it inside the transaction that made the
    change, after the change, with `plan` locked (its customer and merchant
    loaded); `subject` names the change (a reschedule, a refund), so a change
    is told once however often its transaction's caller retries."""
    messages_send_on_commit(
        notices.schedule_changed(
            plan=plan,
            subject=subject,
            change=change,
            unpaid=selectors.unpaid_dues(plan),
        ),
        task_name="send-change-notice",
    )


def plan_cancelled_notice_send(
    plan: PaymentPlan, *, cancelled: list[notices.Due]
) -> None:
    """Tell `plan`'s customer its merchant cancelled it: nothing more will be
    collected (`cancelled`: the installments it left unpaid). In the
    cancellation's transaction, like `schedule_change_notice_send`."""
    messages_send_on_commit(
        notices.plan_cancelled(plan, cancelled=cancelled),
        task_name="send-change-notice",
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
    messages_send_on_commit(
        texts.refund_receipt(refund), task_name="send-refund-receipt"
    )


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
