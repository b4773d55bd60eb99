"""Records of money moved through the processor, and the refund of verification
charges (the 5000 kobo a card or mandate set-up takes and gives back)."""

import logging
from datetime import timedelta
from functools import partial

from django.db import transaction
from django.utils import timezone
from django_q.tasks import async_task

from ..errors import ProcessorError, ProcessorRefused, ProcessorTimeout
from ..models import Customer, PaymentMethod, ProcessorCharge, ProcessorRefund
from ..processors import TransactionResult, get_processor

logger = logging.getLogger("payments")

VERIFICATION_AMOUNT = 5000  # kobo, spec: Limits


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
    payment_method: PaymentMethod | None = None,
) -> ProcessorCharge:
    """Record a charge outcome once; recording the same reference again returns
    the stored row (a verify repeated after a lost response records nothing new)."""
    charge, _ = ProcessorCharge.objects.get_or_create(
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
    return charge


def charge_record_result(
    *,
    result: TransactionResult,
    processor: str,
    customer: Customer,
    purpose: str,
    payment_method: PaymentMethod | None = None,
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
    )


def verification_refund_schedule(charge: ProcessorCharge) -> None:
    """After commit, refund the verification charge in the task queue; the
    sweeper (`verification_refunds_retry`) catches any refund that did not
    happen (processor down, worker lost)."""
    transaction.on_commit(
        partial(async_task, "payments.tasks.refund_verification_charge", charge.pk)
    )


def verification_refund(*, charge_id: int) -> ProcessorRefund | None:
    """Give a verification charge back through the processor and record it.
    Safe to run twice: a charge has at most one refund row, and the processor
    refuses to refund more than was charged."""
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
    processor = get_processor()
    if processor.name != charge.processor:
        logger.error(
            "Charge %s was taken by %s but the service now uses %s; refund it there",
            charge.reference,
            charge.processor,
            processor.name,
        )
        return None
    try:
        result = processor.refund(
            transaction_reference=charge.reference, amount=charge.amount
        )
        refund_id, status, amount = result.refund_id, result.status, result.amount
    except ProcessorRefused as error:
        if "fully reversed" not in error.processor_message.lower():
            logger.error("Refund of %s refused: %s", charge.reference, error.message)
            return None
        # An earlier attempt reached the processor but its answer was lost.
        refund_id, status, amount = "", "processed", charge.amount
    except (ProcessorError, ProcessorTimeout) as error:
        logger.warning("Refund of %s not done yet: %s", charge.reference, error)
        return None
    refund, _ = ProcessorRefund.objects.get_or_create(
        charge=charge,
        defaults={
            "processor": charge.processor,
            "refund_id": refund_id,
            "amount": amount,
            "currency": charge.currency,
            "status": status,
        },
    )
    return refund


def verification_refunds_retry(
    *,
    older_than: timedelta = timedelta(minutes=5),
    within: timedelta = timedelta(days=7),
) -> int:
    """Refund successful verification charges left without a refund."""
    now = timezone.now()
    pending = ProcessorCharge.objects.filter(
        status=ProcessorCharge.Status.SUCCESS,
        purpose__in=ProcessorCharge.VERIFICATION_PURPOSES,
        refund__isnull=True,
        created_at__lte=now - older_than,
        created_at__gte=now - within,
    ).values_list("pk", flat=True)
    return sum(1 for charge_id in pending if verification_refund(charge_id=charge_id))
