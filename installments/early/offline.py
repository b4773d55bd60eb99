"""The processor's side of a bank transfer or USSD payment (DESIGN section 17):
opening the charge the customer completes, and looking it up once more when
it expires. Never raises for a processor problem; the callers decide."""

import logging
from dataclasses import dataclass

from payments.gateway.errors import ProcessorError, ProcessorRefused, ProcessorTimeout
from payments.gateway.processors import processor_of
from payments.gateway.processors.base import OfflineCharge, TransactionResult

from .models import EarlyPayment

logger = logging.getLogger("installments.collection")


@dataclass(frozen=True)
class Opened:
    """What asking for the charge gave: the pending charge (`charge`), a
    refusal (`refused`, with the processor's words), or neither (no answer:
    the charge may exist, the customer has nothing to pay to)."""

    charge: OfflineCharge | None = None
    refused: str = ""


def offline_charge_open(*, payment: EarlyPayment, email: str, bank: str) -> Opened:
    """Ask the processor for the account or code of `payment` (committed,
    `processing`), outside any transaction."""
    plan = payment.plan
    try:
        charge = processor_of(plan.merchant).charge_offline(
            email=email,
            amount=payment.amount,
            reference=payment.reference,
            channel=payment.channel,
            expires_at=payment.expires_at,
            ussd_bank=bank,
            currency=payment.currency,
            metadata={
                "purpose": f"early_{payment.kind}",
                "payment_id": payment.public_id,
                "payment_plan_id": plan.public_id,
                "order_reference": plan.order_reference,
            },
        )
    except ProcessorRefused as error:
        if "duplicate" in error.processor_message.lower():
            return Opened()  # an earlier call with this reference got there
        return Opened(refused=error.processor_message or error.message)
    except (ProcessorError, ProcessorTimeout) as error:
        logger.warning("Offline charge %s has no answer: %s", payment.reference, error)
        return Opened()
    if charge.pending:
        return Opened(charge=charge)
    return Opened(refused=charge.gateway_response or "The processor refused it.")


class Unreachable(Exception):
    """The processor could not say where a charge stands now."""


def offline_charge_verify(*, payment: EarlyPayment) -> TransactionResult | None:
    """Where the charge of `payment` stands at the processor of its plan's
    side (None: it never saw it); Unreachable when it cannot say now."""
    reference = payment.reference
    try:
        return processor_of(payment.plan.merchant).verify_transaction(
            reference=reference
        )
    except (ProcessorError, ProcessorTimeout, ProcessorRefused) as error:
        logger.warning("Verifying %s failed: %s", reference, error)
        raise Unreachable(str(error)) from error
