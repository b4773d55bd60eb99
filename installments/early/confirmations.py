"""The processor's `charge.success` (endpoint 24, verified by payments) for an
early payment: the charge left in flight is recorded as paid at once, instead
of when its lease ends; a bank transfer or USSD payment is paid this way only
(DESIGN section 17), for exactly its amount and before it expires. Registered
with payments in InstallmentsConfig.ready().
"""

import logging
import re

from django.utils import timezone

from payments.gateway.hooks import ConfirmedCharge
from payments.methods.services.saved_charges import SUCCEEDED, ChargeOutcome

from .models import EarlyPayment
from .outcomes import early_payment_record

logger = logging.getLogger("installments.collection")

EARLY_REFERENCE = re.compile(r"^(?:inst_[0-9A-Za-z]+_p|plan_[0-9A-Za-z]+_po)\d+$")


def _in_time(payment: EarlyPayment, charge: ConfirmedCharge) -> bool:
    """An offline payment takes money paid before it expires (Paystack refuses
    or returns a later transfer); a saved method's charge has no expiry."""
    if payment.expires_at is None:
        return True
    return (charge.paid_at or timezone.now()) <= payment.expires_at


def early_payment_charge_confirm(charge: ConfirmedCharge) -> bool:
    """True when the reference is an early payment's (`<inst>_p<k>`,
    `<plan>_po<k>`): recorded now if still in flight, or already settled."""
    if EARLY_REFERENCE.match(charge.reference) is None:
        return False
    payment = EarlyPayment.objects.filter(reference=charge.reference).first()
    if payment is None:
        return False
    if payment.status == EarlyPayment.Status.PROCESSING and (
        charge.amount == payment.amount and _in_time(payment, charge)
    ):
        payment = early_payment_record(
            payment=payment,
            outcome=ChargeOutcome(
                status=SUCCEEDED,
                reference=charge.reference,
                amount=charge.amount,
                message=charge.gateway_response,
                processor_id=charge.processor_id,
            ),
        )
    if payment.status != EarlyPayment.Status.SUCCEEDED:
        # Money the processor took for a payment recorded otherwise (declined,
        # expired, or for another amount, or after its expiry): an operator
        # refunds it or settles it by hand.
        logger.error(
            "charge.success %s (%s kobo, paid %s) for early payment of %s kobo, "
            "which is %s (expires %s): not recorded",
            charge.reference,
            charge.amount,
            charge.paid_at,
            payment.amount,
            payment.status,
            payment.expires_at,
        )
    return True
