"""Records of money moved through the processor, and the refund of verification
charges (the 5000 kobo a card or mandate set-up takes and gives back).

The ledger follows the records in the same transaction: a successful
verification charge posts `verification_charge` when its row is first written,
and a refund posts `verification_refund` once the processor says it is
`processed` (at once in the sandbox; on Paystack possibly later, through a
`refund.*` event or the refund sweeper). What the processor says about a refund
reaches these rows through `verification_refund_settle`, one of the refund
handlers of payments/gateway/hooks.py (registered in payments/apps.py).
"""

import logging
from datetime import timedelta
from typing import TYPE_CHECKING

from django.db import IntegrityError, transaction
from django.utils import timezone

from config.api.queue import enqueue_on_commit

from ...customers.models import Customer
from ...ledger.models import LedgerTransaction
from ...ledger.services import verification_charge_post, verification_refund_post
from ..errors import ProcessorError, ProcessorRefused, ProcessorTimeout
from ..models import ProcessorCharge, ProcessorRefund
from ..processors import (
    RefundResult,
    TransactionResult,
    get_processor,
    processor_for,
    verification_refund_reference,
)
from .refunds import (
    RefundOutcome,
    processor_refund_request,
    refund_outcome,
    refund_outcome_dispatch,
)

if TYPE_CHECKING:
    from ...methods.models import PaymentMethod

logger = logging.getLogger("payments")

VERIFICATION_AMOUNT = 5000  # kobo, spec: Limits
REFUND_PROCESSED = "processed"
REFUND_TASK = "payments.gateway.tasks.refund_verification_charge"
# Paystack refund statuses after which nothing more will happen to a refund.
REFUND_FINAL_STATUSES = frozenset({REFUND_PROCESSED, "failed"})


def charge_record(
    *,
    reference: str,
    processor: str,
    customer: Customer,
    purpose: str,
    amount: int,
    currency: str,
    succeeded: bool,
    gateway_response: str = "",
    failure_reason: str = "",
    processor_id: str = "",
    paid_at=None,
    payment_method: "PaymentMethod | None" = None,
    livemode: bool = True,
) -> ProcessorCharge:
    """Record a charge outcome once; recording the same reference again returns
    the stored row (a verify repeated after a lost response records nothing new).
    A successful verification charge is posted to the ledger with its row, on
    `livemode`'s side: the card set-up's or mandate's (DESIGN section 21)."""
    with transaction.atomic(savepoint=False):
        charge, created = ProcessorCharge.objects.get_or_create(
            reference=reference,
            defaults={
                "processor": processor,
                "customer": customer,
                "purpose": purpose,
                "amount": amount,
                "currency": currency,
                "status": ProcessorCharge.Status.SUCCESS
                if succeeded
                else ProcessorCharge.Status.FAILED,
                "gateway_response": gateway_response[:255],
                "failure_reason": failure_reason,
                "processor_id": processor_id,
                "paid_at": paid_at,
                "payment_method": payment_method,
            },
        )
        if (
            created
            and charge.status == ProcessorCharge.Status.SUCCESS
            and charge.purpose in ProcessorCharge.VERIFICATION_PURPOSES
        ):
            verification_charge_post(
                customer=customer,
                amount=charge.amount,
                reference=charge.reference,
                currency=charge.currency,
                livemode=livemode,
            )
    return charge


def charge_record_result(
    *,
    result: TransactionResult,
    processor: str,
    customer: Customer,
    purpose: str,
    payment_method: "PaymentMethod | None" = None,
    livemode: bool = True,
) -> ProcessorCharge:
    return charge_record(
        reference=result.reference,
        processor=processor,
        customer=customer,
        purpose=purpose,
        amount=result.amount,
        currency=result.currency,
        succeeded=result.succeeded,
        gateway_response=result.gateway_response,
        failure_reason=result.failure_reason,
        processor_id=result.processor_id,
        paid_at=result.paid_at,
        payment_method=payment_method,
        livemode=livemode,
    )


def verification_refund_schedule(charge: ProcessorCharge) -> None:
    """After commit, refund the verification charge in the task queue; the
    sweeper (`verification_refunds_retry`) catches any refund that did not
    happen (processor down, worker lost)."""
    # A broker that is down (Redis) must not turn the committed card into an
    # error answer, which the customer would retry with a second charge.
    enqueue_on_commit(REFUND_TASK, charge.pk)


def verification_refund(*, charge_id: int) -> ProcessorRefund | None:
    """Give a verification charge back through the processor and record it.
    Safe to run twice: a charge has at most one refund row, and the refund is
    asked under the charge's own refund reference, so a request whose answer
    was lost is found again at the processor instead of being made twice (the
    route of every processor refund, payments/gateway/services/refunds.py)."""
    charge = ProcessorCharge.objects.filter(
        pk=charge_id,
        status=ProcessorCharge.Status.SUCCESS,
        purpose__in=ProcessorCharge.VERIFICATION_PURPOSES,
    ).first()
    if charge is None:
        return None
    existing = ProcessorRefund.objects.filter(charge=charge).first()
    if existing is not None:
        return existing
    processor = processor_for(charge.processor)
    if processor is None:
        logger.error(
            "Charge %s was taken by %s but the service now uses %s; refund it there",
            charge.reference,
            charge.processor,
            get_processor().name,
        )
        return None
    try:
        outcome = processor_refund_request(
            reference=verification_refund_reference(charge.reference),
            transaction_reference=charge.reference,
            amount=charge.amount,
            currency=charge.currency,
            processor=processor,
        )
    except ProcessorRefused as error:
        logger.error("Refund of %s refused: %s", charge.reference, error.message)
        return None
    except (ProcessorError, ProcessorTimeout) as error:
        logger.warning("Refund of %s not done yet: %s", charge.reference, error)
        return None
    with transaction.atomic(durable=True):
        refund, created = ProcessorRefund.objects.get_or_create(
            charge=charge,
            defaults={
                "processor": charge.processor,
                "refund_id": outcome.refund_id[:64],
                "amount": outcome.amount,
                "currency": charge.currency,
                # Paystack's own word (pending, processing, ...), not normalized.
                "status": outcome.processor_status,
            },
        )
        if created and refund.status == REFUND_PROCESSED:
            _refund_post(refund)
    return refund


def _refund_post(refund: ProcessorRefund) -> None:
    """Post the refund once: the unique (kind, reference) of the ledger is the
    idempotency key, so a refund recorded again after a lost answer finds its
    posting already there."""
    try:
        with transaction.atomic():
            verification_refund_post(
                customer=refund.charge.customer,
                amount=refund.amount,
                reference=refund.charge.reference,
                currency=refund.currency,
            )
    except IntegrityError:
        if not LedgerTransaction.objects.filter(
            kind=LedgerTransaction.Kind.VERIFICATION_REFUND,
            reference=refund.charge.reference,
        ).exists():
            raise


def refund_status_update(*, refund_id: int, result: RefundResult) -> ProcessorRefund:
    """The processor says where a refund stands now (its `refund.processed` event,
    or the sweeper asking). The money is posted once, when it first becomes
    `processed`; a status never moves back from a final one."""
    with transaction.atomic(savepoint=False):
        refund = (
            ProcessorRefund.objects.select_for_update(of=("self",))
            .select_related("charge__customer")
            .get(pk=refund_id)
        )
        if refund.status in REFUND_FINAL_STATUSES or result.status == refund.status:
            return refund
        if not refund.can_transition_to(result.status):
            # A status Paystack does not document: no news; asked again later.
            logger.warning(
                "Refund %s: %r -> %r is not a refund status move",
                refund.pk,
                refund.status,
                result.status,
            )
            return refund
        if result.refund_id and not refund.refund_id:
            refund.refund_id = result.refund_id[:64]
        refund.transition_to(result.status, update_fields=["refund_id"])
        if refund.status == REFUND_PROCESSED:
            _refund_post(refund)
    return refund


def verification_refund_settle(outcome: RefundOutcome) -> bool:
    """The refund handler of verification charges: True when `outcome` is the
    refund of one (the refund of its transaction, and the same refund when the
    row knows its processor id), whose row then takes the processor's status."""
    refund = (
        ProcessorRefund.objects.filter(charge__reference=outcome.transaction_reference)
        .only("pk", "refund_id")
        .first()
    )
    if refund is None:
        return False
    if refund.refund_id and outcome.refund_id and refund.refund_id != outcome.refund_id:
        return False
    refund_status_update(
        refund_id=refund.pk,
        result=RefundResult(
            refund_id=outcome.refund_id,
            transaction_reference=outcome.transaction_reference,
            amount=outcome.amount,
            status=outcome.processor_status,
        ),
    )
    return True


def refund_refresh(*, refund_id: int) -> ProcessorRefund | None:
    """Ask the processor about a refund that is not final yet; what it says goes
    to the refund handlers (this charge's among them)."""
    refund = (
        ProcessorRefund.objects.filter(pk=refund_id).select_related("charge").first()
    )
    if refund is None or refund.status in REFUND_FINAL_STATUSES:
        return refund
    processor = processor_for(refund.processor)
    if not refund.refund_id or processor is None:
        return refund
    try:
        result = processor.fetch_refund(refund_id=refund.refund_id)
    except (ProcessorError, ProcessorTimeout, ProcessorRefused) as error:
        logger.warning("Refund %s not checked: %s", refund.refund_id, error)
        return refund
    if result is None:
        return refund
    with transaction.atomic(durable=True):
        refund_outcome_dispatch(
            refund_outcome(result, transaction_reference=refund.charge.reference)
        )
    refund.refresh_from_db()
    return refund


def verification_refunds_retry(
    *,
    older_than: timedelta = timedelta(minutes=5),
    within: timedelta = timedelta(days=7),
) -> int:
    """Refund successful verification charges left without a refund, and ask
    the processor again about refunds it has not finished (pending, processing)."""
    now = timezone.now()
    pending = ProcessorCharge.objects.filter(
        status=ProcessorCharge.Status.SUCCESS,
        purpose__in=ProcessorCharge.VERIFICATION_PURPOSES,
        refund__isnull=True,
        created_at__lte=now - older_than,
        created_at__gte=now - within,
    ).values_list("pk", flat=True)
    refunded = sum(
        1 for charge_id in pending if verification_refund(charge_id=charge_id)
    )
    unfinished = (
        ProcessorRefund.objects.exclude(status__in=REFUND_FINAL_STATUSES)
        .filter(created_at__lte=now - older_than, created_at__gte=now - within)
        .values_list("pk", flat=True)
    )
    for refund_id in unfinished:
        refund_refresh(refund_id=refund_id)
    return refunded
