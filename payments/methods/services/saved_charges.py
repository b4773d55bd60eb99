"""Charging a customer's saved payment method with a caller-chosen reference.

For deposits (and any later collection): the caller commits its own record of the
attempt first, then calls `saved_method_charge` outside any transaction holding
row locks, then records the outcome. The reference is deterministic per attempt,
so an answer lost to a timeout is recovered by verifying that reference, never by
charging again.
"""

import logging
from dataclasses import dataclass

from ...gateway.errors import ProcessorError, ProcessorRefused, ProcessorTimeout
from ...gateway.processors import (
    FailureReason,
    Processor,
    TransactionResult,
    TransactionStatus,
    processor_for,
    side_processor,
)
from ..models import PaymentMethod
from .declines import declined_method_retire

logger = logging.getLogger("payments")

SUCCEEDED = "succeeded"
FAILED = "failed"
# The processor has not said (timeout, pending): verify the reference later.
UNKNOWN = "unknown"


@dataclass(frozen=True)
class ChargeOutcome:
    status: str  # SUCCEEDED, FAILED or UNKNOWN
    reference: str
    amount: int = 0
    failure_reason: str = ""  # FailureReason when FAILED
    message: str = ""  # the processor's words, for people
    processor_id: str = ""

    @property
    def succeeded(self) -> bool:
        return self.status == SUCCEEDED

    @property
    def failed(self) -> bool:
        return self.status == FAILED


def _from_result(result: TransactionResult) -> ChargeOutcome:
    if result.succeeded:
        status = SUCCEEDED
    elif result.status == TransactionStatus.FAILED:
        status = FAILED
    else:
        status = UNKNOWN
    return ChargeOutcome(
        status=status,
        reference=result.reference,
        amount=result.amount,
        failure_reason=(result.failure_reason or FailureReason.DECLINED)
        if status == FAILED
        else "",
        message=result.gateway_response,
        processor_id=result.processor_id,
    )


def _not_charged(reference: str, message: str) -> ChargeOutcome:
    return ChargeOutcome(
        status=FAILED,
        reference=reference,
        failure_reason=FailureReason.PROCESSOR_ERROR,
        message=message,
    )


def charge_verify(
    *, processor: Processor, reference: str, unseen_is_failed: bool
) -> ChargeOutcome:
    """What `processor` (the one the charge went to: the processor of the
    record's side) knows of `reference`; UNKNOWN when it cannot say.

    A reference the processor has never seen is FAILED (`processor_error`, never
    charged) only with `unseen_is_failed`: right after a timeout the request may
    still be on its way, so the caller passes it only for attempts old enough
    that no request can still arrive.
    """
    try:
        result = processor.verify_transaction(reference=reference)
    except (ProcessorError, ProcessorTimeout, ProcessorRefused) as error:
        logger.warning("Verifying %s failed: %s", reference, error)
        return ChargeOutcome(status=UNKNOWN, reference=reference, message=str(error))
    if result is None:
        if not unseen_is_failed:
            return ChargeOutcome(status=UNKNOWN, reference=reference)
        return _not_charged(
            reference, "The payment processor never received this charge."
        )
    return _from_result(result)


def charge_find(*, processor: Processor, reference: str) -> ChargeOutcome | None:
    """What `processor` knows of `reference`: None when it has never seen it,
    UNKNOWN when it cannot say now (for callers old enough to know that no
    request with this reference can still arrive, e.g. a crashed attempt)."""
    try:
        result = processor.verify_transaction(reference=reference)
    except (ProcessorError, ProcessorTimeout, ProcessorRefused) as error:
        logger.warning("Verifying %s failed: %s", reference, error)
        return ChargeOutcome(status=UNKNOWN, reference=reference, message=str(error))
    return None if result is None else _from_result(result)


def method_processor(method: PaymentMethod) -> Processor | None:
    """The processor `method` was saved with (a test method's is the sandbox
    whatever PROCESSOR says), when it is also the processor of the method's
    side; None otherwise: the service has left that processor, or a live method
    was saved with the sandbox before the deployment moved to a real processor
    (charging it there would mark a live plan paid with no money taken)."""
    processor = processor_for(method.processor)
    if processor is None or processor.name != side_processor(method.livemode).name:
        return None
    return processor


def saved_method_charge(
    *,
    method: PaymentMethod,
    amount: int,
    reference: str,
    currency: str = "NGN",
    metadata: dict | None = None,
) -> ChargeOutcome:
    """Charge `method` once under `reference` (never reused by the caller).

    Never raises for a processor problem: a decline is FAILED with its reason; a
    timeout or error is answered by verifying the reference, and is UNKNOWN
    when the processor cannot say yet (settle it later with `charge_verify`).
    A refusal before charging is FAILED (`processor_error`). A hard decline
    (payments/gateway/declines.py) takes the method out of charging: an
    expired card is marked expired, a revoked authorization or a closed
    account deactivated, as a revocation would.
    """
    processor = method_processor(method)
    if processor is None:
        return _not_charged(
            reference,
            f"This payment method was saved with {method.processor}; the service "
            "now uses another processor.",
        )
    try:
        result = processor.charge_authorization(
            email=method.customer.email,
            amount=amount,
            authorization_code=method.authorization_code,
            reference=reference,
            currency=currency,
            metadata=metadata,
        )
    except ProcessorRefused as error:
        if "duplicate" in error.processor_message.lower():
            # An earlier call with this reference reached the processor.
            return charge_verify(
                processor=processor, reference=reference, unseen_is_failed=False
            )
        return ChargeOutcome(
            status=FAILED,
            reference=reference,
            failure_reason=FailureReason.PROCESSOR_ERROR,
            message=error.processor_message,
        )
    except (ProcessorError, ProcessorTimeout) as error:
        logger.warning("Charge %s has no answer (%s); verifying", reference, error)
        return charge_verify(
            processor=processor, reference=reference, unseen_is_failed=False
        )
    if result.status == TransactionStatus.FAILED:
        declined_method_retire(method=method, result=result)
    return _from_result(result)


def saved_method_partial_debit(
    *,
    method: PaymentMethod,
    amount: int,
    at_least: int,
    reference: str,
    currency: str = "NGN",
) -> ChargeOutcome:
    """Ask `method` for what it has of `amount`, down to `at_least`, once under
    `reference` (DESIGN section 15: partial collection). As
    `saved_method_charge`: never raises for a processor problem, a lost answer
    is verified, and a SUCCEEDED outcome's `amount` is what was collected."""
    processor = method_processor(method)
    if processor is None:
        return _not_charged(reference, "This payment method was saved elsewhere.")
    try:
        result = processor.partial_debit(
            email=method.customer.email,
            amount=amount,
            at_least=at_least,
            authorization_code=method.authorization_code,
            reference=reference,
            currency=currency,
        )
    except ProcessorRefused as error:
        if "duplicate" in error.processor_message.lower():
            return charge_verify(
                processor=processor, reference=reference, unseen_is_failed=False
            )
        return _not_charged(reference, error.processor_message)
    except (ProcessorError, ProcessorTimeout) as error:
        logger.warning(
            "Partial debit %s has no answer (%s); verifying", reference, error
        )
        return charge_verify(
            processor=processor, reference=reference, unseen_is_failed=False
        )
    return _from_result(result)
