"""Payment processor adapters, chosen by settings.PROCESSOR (DESIGN section 9).

`get_processor()` is the only way the rest of the service reaches a processor.
"""

from functools import lru_cache

from django.conf import settings

from .base import (
    Authorization,
    Bank,
    ChargeStatus,
    ChargeStep,
    DirectDebitAuthorization,
    DirectDebitRequest,
    FailureReason,
    InitializedTransaction,
    Processor,
    RefundResult,
    ResolvedAccount,
    RevokedMandate,
    TransactionResult,
    TransactionStatus,
    TransferRecipient,
    TransferResult,
    verification_refund_reference,
)

__all__ = [
    "Authorization",
    "Bank",
    "ChargeStatus",
    "ChargeStep",
    "DirectDebitAuthorization",
    "DirectDebitRequest",
    "FailureReason",
    "InitializedTransaction",
    "Processor",
    "RefundResult",
    "ResolvedAccount",
    "RevokedMandate",
    "TransactionResult",
    "TransactionStatus",
    "TransferRecipient",
    "TransferResult",
    "get_processor",
    "processor_for",
    "verification_refund_reference",
]


@lru_cache(maxsize=4)
def _build(name: str, base_url: str, secret_key: str) -> Processor:
    if name == "paystack":
        from .paystack import PaystackProcessor

        return PaystackProcessor(base_url=base_url, secret_key=secret_key)
    from .sandbox import SandboxProcessor

    return SandboxProcessor()


def get_processor() -> Processor:
    """The configured adapter (one per configuration, so HTTP connections pool)."""
    return _build(
        settings.PROCESSOR, settings.PAYSTACK_BASE_URL, settings.PAYSTACK_SECRET_KEY
    )


def processor_for(made_on: str) -> Processor | None:
    """The service's processor when it is `made_on`, the processor a charge, a
    refund or a payout was made on: anything more about that record must go
    there. None once the service uses another one."""
    processor = get_processor()
    return processor if processor.name == made_on else None


def processor_name() -> str:
    return settings.PROCESSOR
