"""django-q2 entry points: thin wrappers over services, safe to run twice."""

import logging

from django_q.tasks import async_task

from merchants.audit.services import audit_retention_run

from .collection import collect_due
from .disputes import services as disputes
from .early.expiry import early_payments_expire
from .notifications import emails
from .refunds.services import refund_idempotency_records_purge
from .refunds.settlement import parts_poll
from .retention.services import records_purge

logger = logging.getLogger("installments.collection")

COLLECT_TASK = "installments.tasks.collect_due_installments"
# A pass stops claiming after this long and enqueues its continuation, well
# inside the django-q2 task timeout (a task killed mid-batch leaves its claims
# in flight until their lease ends).
PASS_BUDGET_SECONDS = 60


def collect_due_installments(side: str = "live") -> str:
    """Every 5 minutes, for each side (`live`, `test`: a schedule each, so
    that neither side's pass waits for the other's, DESIGN section 21): collect
    what is due now, settle attempts left in flight."""
    summary = collect_due(budget_seconds=PASS_BUDGET_SECONDS, livemode=side == "live")
    if summary.more:
        async_task(
            COLLECT_TASK, side, task_name=f"collect-installments-{side}-continued"
        )
    if summary.claimed:
        logger.info("collect_due_installments (%s): %s", side, summary.line())
    return summary.line()


def send_emails(messages: list) -> int:
    """A collection batch's e-mails, (subject, body, recipient), queued by a
    version before the one that records them as messages (notifications/):
    while a deploy rolls, its workers still queue them, and this one sends them
    as they did, unrecorded, over one connection. Returns how many went out;
    each one refused is logged (that version raised, losing the rest)."""
    sent = 0
    with emails.one_by_one() as send:
        for subject, body, recipient in messages:
            outcome = send(subject, body, recipient)
            if outcome.error:
                logger.warning("A queued collection e-mail not sent: %s", outcome.error)
            else:
                sent += 1
    return sent


def refund_parts_poll() -> int:
    """Every 5 minutes: ask again for refund parts that got no answer, look up
    the pending ones."""
    return parts_poll()


def purge_expired_refund_idempotency_records() -> int:
    return refund_idempotency_records_purge()


def expire_offline_payments() -> int:
    """Every minute: end the bank transfer and USSD payments whose 30 minutes
    are over (their money, when it landed in time, is applied instead)."""
    return early_payments_expire()


def purge_records() -> str:
    """Daily: delete the records past the financial-records period
    (installments/retention/), and the merchants' audit log entries past theirs
    (merchants/audit/, AUDIT_RETENTION_DAYS)."""
    summary = records_purge()
    if summary.plans or summary.customers:
        logger.info("purge_records: %s", summary.line())
    audit_removed = audit_retention_run()
    if audit_removed:
        logger.info("purge_records: %d audit log entries removed", audit_removed)
    return summary.line()


def disputes_lapse() -> int:
    """Every 15 minutes: disputes left unanswered past their deadline are lost."""
    return disputes.disputes_lapse()
