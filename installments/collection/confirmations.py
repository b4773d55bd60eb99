"""The processor's `charge.success` (endpoint 24, verified by payments) for an
installment attempt or an early payment: the charge left in flight (the
processor said "pending", or the answer was lost) is recorded as paid at once,
instead of when its lease ends. Registered with payments in
InstallmentsConfig.ready().
"""

import logging
import re

from django.db import transaction
from django.utils import timezone

from payments.gateway.hooks import ConfirmedCharge

from ..plans.models import Installment, PaymentPlan
from .charging import PAID, Result
from .claims import Claim
from .outcomes import apply_outcomes

logger = logging.getLogger("installments.collection")


REFERENCE = re.compile(r"^(inst_[0-9A-Za-z]+)_a(\d+)(?:m(\d+))?$")


PARTIAL_REFERENCE = re.compile(r"^inst_[0-9A-Za-z]+_a\d+p$")


def installment_charge_confirm(charge: ConfirmedCharge) -> bool:
    """True when the reference is an installment attempt's (recorded now, or
    already); False for anyone else's charge."""
    match = REFERENCE.match(charge.reference)
    if match is None:
        return False
    installment = (
        Installment.objects.select_related("plan__customer")
        .filter(public_id=match[1])
        .first()
    )
    if installment is None:
        return False
    attempt = int(match[2])
    with transaction.atomic(savepoint=False):
        # The plan's lock before the installment's, as every writer of a
        # plan's installments takes them (DESIGN 14).
        PaymentPlan.objects.select_for_update().filter(pk=installment.plan_id).first()
        installment = (
            Installment.objects.select_for_update(of=("self",))
            .select_related("plan__customer", "plan__merchant")
            .get(pk=installment.pk)
        )
        in_flight = (
            installment.status == Installment.Status.PROCESSING
            and installment.attempts == attempt
        )
        if in_flight and charge.amount == installment.amount_owed:
            claim = Claim.of(installment, resumed=True)
            apply_outcomes(
                [
                    Result(
                        claim,
                        PAID,
                        method_number=int(match[3] or 1),
                        channel=charge.channel,
                    )
                ],
                pass_date=timezone.localdate(),
            )
        elif installment.processor_reference != charge.reference or (
            installment.status != Installment.Status.PAID
        ):
            # Money the processor took that the engine recorded otherwise: an
            # operator refunds it or settles it by hand.
            logger.error(
                "charge.success %s (%s kobo) for installment %s, which is %s "
                "(attempt %s, reference %s): not recorded",
                charge.reference,
                charge.amount,
                installment.public_id,
                installment.status,
                installment.attempts,
                installment.processor_reference,
            )
    return True


def partial_debit_charge_confirm(charge: ConfirmedCharge) -> bool:
    """True when the reference is an installment's partial debit
    (`<inst>_a<n>p`, DESIGN section 15). Nothing is recorded here: its attempt
    records it with the engine's batch, or, when its answer was lost, the
    engine's pass verifies it by reference once the attempt's lease ends."""
    if PARTIAL_REFERENCE.match(charge.reference) is None:
        return False
    installment = (
        Installment.objects.filter(partial_reference=charge.reference)
        .only("status", "amount_paid")
        .first()
    )
    if installment is None:
        return False
    logger.info(
        "charge.success %s (%s kobo): a partial debit of an installment now %s "
        "(%s kobo collected); the engine records it",
        charge.reference,
        charge.amount,
        installment.status,
        installment.amount_paid,
    )
    return True
