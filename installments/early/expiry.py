"""Ending bank transfer and USSD payments (DESIGN section 17) that the
customer did not complete within their 30 minutes: a job every minute finds
those past `expires_at` and, after one last look at the processor (money that
landed before the expiry is applied), settles each as a declined early payment
with the reason `expired`: every installment back exactly as it was, and
`payment.failed` (`expired`, retryable) once (outcomes.py).

An offline payment's lease is its expiry: the engine's recovery of early
payments (collection/early_recovery.py) leaves them to this job, since a
charge waiting for the customer is "pending" at the processor until then.
"""

import logging
from datetime import datetime

from django.utils import timezone

from payments.gateway.declines import EXPIRED
from payments.gateway.processors.base import PayChannel
from payments.methods.services.saved_charges import (
    FAILED,
    SUCCEEDED,
    ChargeOutcome,
)

from .models import EarlyPayment
from .offline import Unreachable, offline_charge_verify
from .outcomes import early_payment_settle, early_payments_settle_each

logger = logging.getLogger("installments.collection")


def landed_in_time(result, payment: EarlyPayment) -> bool:
    """The processor has the money for exactly this payment, paid before its
    expiry (when it says when)."""
    return (
        result is not None
        and result.succeeded
        and result.amount == payment.amount
        and (result.paid_at is None or result.paid_at <= payment.expires_at)
    )


def early_payment_expire(*, payment: EarlyPayment) -> EarlyPayment:
    """End a pending bank transfer or USSD payment: succeeded when the
    processor has its money (landed before the expiry), otherwise failed with
    the reason `expired`. Stays pending when the processor cannot say now (the
    next run asks again). A payment already settled is returned as it is."""
    if payment.status != EarlyPayment.Status.PROCESSING or not payment.offline:
        return payment
    try:
        result = offline_charge_verify(payment=payment)
    except Unreachable:
        return payment
    if landed_in_time(result, payment):
        outcome = ChargeOutcome(
            status=SUCCEEDED,
            reference=payment.reference,
            amount=result.amount,
            message=result.gateway_response,
            processor_id=result.processor_id,
        )
    else:
        if result is not None and result.succeeded:
            # Money Paystack should have refused (another amount, or late):
            # an operator returns it.
            logger.error(
                "Offline payment %s expired: the processor holds %s kobo for it "
                "(paid %s), not %s kobo before %s; not applied",
                payment.reference,
                result.amount,
                result.paid_at,
                payment.amount,
                payment.expires_at,
            )
        outcome = ChargeOutcome(
            status=FAILED,
            reference=payment.reference,
            failure_reason=EXPIRED,
            message="Not paid before the payment expired.",
        )
    return early_payment_settle(payment=payment, outcome=outcome)


def early_payments_expire(*, now: datetime | None = None, limit: int = 200) -> int:
    """End up to `limit` offline payments past their expiry, oldest first; how
    many were settled. Never raises: one that cannot be settled now is tried
    on the next run."""
    now = now or timezone.now()
    due = list(
        EarlyPayment.objects.filter(
            status=EarlyPayment.Status.PROCESSING,
            # An offline payment's lease is its expiry (the in-flight index).
            leased_until__lte=now,
            channel__in=PayChannel.OFFLINE,
            expires_at__lte=now,
        ).order_by("expires_at", "id")[:limit]
    )
    return early_payments_settle_each(
        due,
        lambda payment: early_payment_expire(payment=payment),
        failure="Offline payment %s could not be ended; it stays pending",
    )
