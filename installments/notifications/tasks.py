"""django-q2 entry points of reminders and receipts (schedules declared in
installments/apps.py): thin, safe to run twice and in two clusters at once."""

import logging
from datetime import date

from django.utils import timezone
from django_q.tasks import async_task

from . import services

logger = logging.getLogger("installments.notifications")

REMINDERS_TASK = "installments.notifications.tasks.send_reminders"


def send_reminders(day: str | None = None) -> str:
    """Daily: the reminders of `day` (ISO date; today in Lagos). A run stopped by
    its time budget enqueues its continuation for the same day."""
    day = day or timezone.localdate().isoformat()
    tally = services.reminders_send(day=date.fromisoformat(day))
    if tally.more:
        async_task(REMINDERS_TASK, day, task_name="send-reminders-continued")
    logger.info("send_reminders %s: %s", day, tally.line())
    return tally.line()


def send_collection_receipts() -> str:
    """Every few minutes: receipts for the collections recorded since the last
    pass (looking back two days)."""
    tally = services.collection_receipts_send()
    if tally.sent or tally.failed:
        logger.info("send_collection_receipts: %s", tally.line())
    return tally.line()


def send_action_required_notices(installment_pks: list[int] | None = None) -> str:
    """After a batch made installments wait for a payment method (their pks),
    and every few minutes for all of them: the requests to add one not sent
    yet."""
    tally = services.action_required_notices_send(installment_pks=installment_pks)
    if tally.sent or tally.failed:
        logger.info("send_action_required_notices: %s", tally.line())
    return tally.line()


def send_due_messages(pks: list[int] | None = None) -> str:
    """Every minute (the sweep), and after the commit that recorded messages
    (their pks): send the messages no sender holds. A run stopped by its time
    budget enqueues its continuation."""
    tally = services.messages_send_due(pks=pks)
    if tally.more:
        async_task(services.SEND_DUE_TASK, task_name="send-due-messages-continued")
    if tally.sent or tally.failed:
        logger.info("send_due_messages: %s", tally.line())
    return tally.line()


def refund_receipt_deliver(facts: dict) -> str:
    """A refund receipt task queued before receipts were recorded in the
    refund's transaction (services.refund_receipt_deliver)."""
    return services.refund_receipt_deliver(facts).line()
