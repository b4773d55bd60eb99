"""Payouts (DESIGN section 8): a merchant's available balance to their bank.

1. `payout_create` locks the merchant's row (so two runs at once pay once), and
   when the wallet holds at least 100,000 kobo and a payout account is set,
   writes the payout and its posting wallet -> payouts_in_transit, and commits.
2. `payout_transfer_request` asks the processor for a transfer whose reference is
   the payout's own id. The request is counted and committed before it is sent;
   a payout that was asked before is verified first (verify-before-retry), and
   the processor refuses a second transfer with the same reference, so a retry
   can never pay twice.
3. The outcome arrives as a processor event (`transfer.success`,
   `transfer.failed`, `transfer.reversed`; endpoint 24, or the sandbox's own
   settlement task feeding the same handler). `payout_outcome_apply` moves the
   money only for a status the processor confirmed on verify: paid (in transit
   -> out of processor_clearing, `transfer.success` to the merchant), or failed /
   reversed (the money back to the wallet).
"""

import logging
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from config.api.queue import enqueue_on_commit
from merchants.models import Merchant
from webhooks.services import emit_event

from ...gateway.errors import ProcessorError, ProcessorRefused, ProcessorTimeout
from ...gateway.processors import (
    Processor,
    TransferResult,
    get_processor,
    processor_for,
    processor_of,
)
from ...ledger.services import (
    payout_post,
    payout_returned_post,
    payout_settled_post,
)
from .. import selectors as payout_selectors
from ..models import Payout, PayoutItem, PayoutRecipient

logger = logging.getLogger("payments.payouts")

MINIMUM_PAYOUT = 100_000  # kobo
# A payout left pending or processing this long is looked at again by the next
# run (its request or its event may have been lost).
STALE_AFTER = timedelta(minutes=10)
SANDBOX_SETTLE_TASK = "payments.gateway.tasks.settle_sandbox_transfer"
TRANSFER_REASON = "Installment collections payout"

_SUCCESS = "success"
_REVERSED = "reversed"
_FAILED_STATUSES = frozenset({"failed", "abandoned", "blocked", "rejected"})


class PayoutMismatch(ValueError):
    """The processor reports a transfer that does not match the payout."""


def has_payout_account(merchant: Merchant) -> bool:
    return bool(merchant.payout_bank_code and merchant.payout_account_number)


# 1. Create ---------------------------------------------------------------------


def payout_create(*, merchant: Merchant) -> Payout | None:
    """Move the whole available balance into transit, or None when there is
    nothing to pay (below the minimum, no payout account, merchant not active)."""
    with transaction.atomic(durable=True):
        merchant = Merchant.objects.select_for_update().get(pk=merchant.pk)
        if not merchant.is_active or not has_payout_account(merchant):
            return None
        # Read after the lock: a concurrent run's payout is committed and seen.
        # The amount is what the lines read add up to, in one statement: a
        # collection committing meanwhile is in neither, and left for the next
        # payout, so the settlement report is exactly what was paid.
        lines = payout_selectors.wallet_lines_unpaid(merchant)
        available = -sum(amount for _, amount in lines)
        if available < MINIMUM_PAYOUT:
            return None
        payout = Payout.objects.create(
            merchant=merchant,
            amount=available,
            bank_code=merchant.payout_bank_code,
            account_number=merchant.payout_account_number,
            account_name=merchant.payout_account_name,
            # Its side's processor pays it (the sandbox for a test side).
            processor=processor_of(merchant).name,
        )
        PayoutItem.objects.bulk_create(
            (PayoutItem(payout=payout, line_id=pk) for pk, _ in lines),
            batch_size=2000,
        )
        payout_post(payout=payout)
    return payout


# 2. Request the transfer -------------------------------------------------------


def _recipient(payout: Payout, processor: Processor) -> PayoutRecipient:
    """The processor's recipient for this account: created once, then reused."""
    lookup = {
        "processor": processor.name,
        "bank_code": payout.bank_code,
        "account_number": payout.account_number,
    }
    found = PayoutRecipient.objects.filter(**lookup).first()
    if found is not None:
        return found
    made = processor.create_transfer_recipient(
        name=payout.account_name or payout.merchant.business_name,
        bank_code=payout.bank_code,
        account_number=payout.account_number,
        currency=payout.currency,
    )
    try:
        with transaction.atomic():
            return PayoutRecipient.objects.create(
                **lookup,
                account_name=made.name[:200],
                recipient_code=made.recipient_code,
            )
    except IntegrityError:
        return PayoutRecipient.objects.get(**lookup)


def _verify(processor: Processor, payout: Payout) -> TransferResult | None:
    result = processor.verify_transfer(reference=payout.public_id)
    if result is not None and result.amount != payout.amount:
        raise PayoutMismatch(
            f"the processor's transfer {payout.public_id} is for {result.amount}, "
            f"the payout for {payout.amount}"
        )
    return result


def payout_transfer_request(*, payout_id: int) -> Payout:
    """Ask the processor to pay a pending payout. Safe to call again: a payout
    asked for before is verified at the processor first and only asked again
    (with the same reference) when the processor knows no such transfer."""
    payout = Payout.objects.select_related("merchant").get(pk=payout_id)
    if payout.status != Payout.Status.PENDING:
        return payout
    processor = processor_for(payout.processor)
    if processor is None:
        logger.error(
            "Payout %s was made on %s but the service now uses %s",
            payout.public_id,
            payout.processor,
            get_processor().name,
        )
        return payout
    if payout.transfer_requests:
        try:
            found = _verify(processor, payout)
        except (ProcessorError, ProcessorTimeout) as error:
            logger.warning("Payout %s not verified: %s", payout.public_id, error)
            return payout
        if found is not None:
            return _record_reply(payout, found)
    try:
        recipient = _recipient(payout, processor)
    except ProcessorRefused as error:
        return payout_fail(payout_id=payout.pk, reason=error.processor_message)
    except (ProcessorError, ProcessorTimeout) as error:
        logger.warning("Payout %s recipient not created: %s", payout.public_id, error)
        return payout

    payout = _request_count(payout, recipient)
    if payout.status != Payout.Status.PENDING:
        return payout
    try:
        reply = processor.transfer(
            amount=payout.amount,
            recipient_code=recipient.recipient_code,
            reference=payout.public_id,
            reason=TRANSFER_REASON,
            currency=payout.currency,
        )
    except ProcessorRefused as error:
        return _refused(processor, payout, error)
    except (ProcessorError, ProcessorTimeout) as error:
        # Outcome unknown: the next run verifies the reference before asking again.
        logger.warning("Payout %s request unanswered: %s", payout.public_id, error)
        return payout
    return _record_reply(payout, reply)


def _request_count(payout: Payout, recipient: PayoutRecipient) -> Payout:
    """Count the request and commit it before it is sent; the payout as it is
    now (no longer pending when another run got there first)."""
    with transaction.atomic(durable=True):
        payout = Payout.objects.select_for_update().get(pk=payout.pk)
        if payout.status == Payout.Status.PENDING:
            payout.recipient = recipient
            payout.transfer_requests += 1
            payout.last_requested_at = timezone.now()
            payout.save(
                update_fields=[
                    "recipient",
                    "transfer_requests",
                    "last_requested_at",
                    "updated_at",
                ]
            )
    return payout


def _refused(processor: Processor, payout: Payout, error: ProcessorRefused) -> Payout:
    """The processor refused the transfer request."""
    duplicate = "duplicate" in error.processor_message.lower()
    if payout.transfer_requests == 1 and not duplicate:
        # Refused outright and never asked before: no transfer exists.
        return payout_fail(payout_id=payout.pk, reason=error.processor_message)
    try:
        found = _verify(processor, payout)
    except (ProcessorError, ProcessorTimeout):
        found = None
    if found is None:
        logger.error(
            "Payout %s refused (%s) and not found; left pending",
            payout.public_id,
            error.processor_message,
        )
        return payout
    return _record_reply(payout, found)


def _record_reply(payout: Payout, reply: TransferResult) -> Payout:
    """The processor has the transfer. Money moves only on a verified outcome:
    a reply is recorded as `processing`, then conclusive replies are verified."""
    with transaction.atomic(durable=True):
        payout = Payout.objects.select_for_update().get(pk=payout.pk)
        if payout.status == Payout.Status.PENDING:
            payout.transfer_code = reply.transfer_code[:64]
            payout.save(update_fields=["transfer_code", "updated_at"])
            payout.transition_to(Payout.Status.PROCESSING)
            if payout.processor == "sandbox":
                # The sandbox settles asynchronously, like a real processor, and
                # through the same handler as a processor event. With the broker
                # down the transfer is still made; the next run's look at stale
                # payouts settles it.
                enqueue_on_commit(SANDBOX_SETTLE_TASK, payout.public_id)
    if reply.conclusive:
        payout = payout_check(payout_id=payout.pk)
    return payout


def payout_fail(*, payout_id: int, reason: str) -> Payout:
    """The processor refused the transfer before it existed: money back."""
    with transaction.atomic(durable=True):
        payout = Payout.objects.select_for_update().get(pk=payout_id)
        if payout.status != Payout.Status.PENDING:
            return payout
        payout.failure_reason = reason[:255] or payout.failure_reason
        payout.transition_to(Payout.Status.FAILED, update_fields=["failure_reason"])
        payout_returned_post(payout=payout, after_settlement=False)
    logger.warning("Payout %s failed: %s", payout.public_id, reason)
    return payout


# 3. Outcome ------------------------------------------------------------------


def payout_outcome_apply(*, payout_id: int, result: TransferResult) -> str:
    """Apply a status the processor confirmed on verify, inside the caller's
    transaction. Idempotent: an outcome already applied changes nothing."""
    with transaction.atomic(savepoint=False):
        payout = (
            Payout.objects.select_for_update(of=("self",))
            .select_related("merchant")
            .get(pk=payout_id)
        )
        if result.amount != payout.amount:
            raise PayoutMismatch(
                f"transfer {payout.public_id} is for {result.amount}, the payout "
                f"for {payout.amount}"
            )
        was = payout.status
        if result.status == _SUCCESS:
            target = Payout.Status.PAID
        elif result.status in _FAILED_STATUSES or result.status == _REVERSED:
            # Money that never left (as far as the ledger knows) "failed"; money
            # paid, then returned by the bank, is "reversed". Both come back.
            target = (
                Payout.Status.REVERSED
                if was == Payout.Status.PAID
                else Payout.Status.FAILED
            )
        else:
            if was == Payout.Status.PENDING:
                payout.transition_to(Payout.Status.PROCESSING)
                return "processing"
            return f"still {result.status} at the processor"
        if was == target or (was in Payout.RETURNED and target in Payout.RETURNED):
            return f"already {was}"
        # An impossible story (paid after the money was returned) raises here
        # and is recorded on the inbound row for the operators.
        if target != Payout.Status.PAID:
            payout.failure_reason = _failure_reason(result)[:255]
        payout.transition_to(target, update_fields=["failure_reason"])
        if result.transfer_code and not payout.transfer_code:
            payout.transfer_code = result.transfer_code[:64]
            payout.save(update_fields=["transfer_code", "updated_at"])
        if target == Payout.Status.PAID:
            payout_settled_post(payout=payout)
            emit_event(
                merchant=payout.merchant,
                event_type="transfer.success",
                data=transfer_success_data(payout),
            )
        else:
            payout_returned_post(
                payout=payout, after_settlement=was == Payout.Status.PAID
            )
        return target


def _failure_reason(result: TransferResult) -> str:
    said = result.reason if result.reason != TRANSFER_REASON else ""
    return f"Transfer {result.status} at the processor" + (f": {said}" if said else "")


def transfer_success_data(payout: Payout) -> dict:
    return {
        "resourceType": "payout",
        "resourceId": payout.public_id,
        "amount": payout.amount,
        "currency": payout.currency,
        "reference": payout.public_id,
        "bankCode": payout.bank_code,
        "accountLast4": payout.account_last4,
    }


def payout_check(*, payout_id: int) -> Payout:
    """Verify an open payout at the processor and apply a conclusive outcome."""
    payout = Payout.objects.get(pk=payout_id)
    if payout.status not in Payout.OPEN:
        return payout
    processor = processor_for(payout.processor)
    if processor is None:
        return payout
    try:
        result = _verify(processor, payout)
    except (ProcessorError, ProcessorTimeout) as error:
        logger.warning("Payout %s not verified: %s", payout.public_id, error)
        return payout
    if result is None or not result.conclusive:
        return payout
    with transaction.atomic(durable=True):
        payout_outcome_apply(payout_id=payout.pk, result=result)
    return Payout.objects.get(pk=payout.pk)
