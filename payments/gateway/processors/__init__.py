"""Payment processor adapters, chosen by settings.PROCESSOR (DESIGN section 9).

`get_processor()` is the live side's processor; `processor_of(merchant)` the
processor of a merchant row's side, and `processor_for(made_on)` the one a
record was made on. Test data (DESIGN section 21) goes through the sandbox
processor whatever `PROCESSOR` says.
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
    "processor_of",
    "sandbox_processor",
    "side_processor",
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


def sandbox_processor() -> Processor:
    """The sandbox: the test side's processor on every deployment, and the
    live side's where `PROCESSOR` is `sandbox` (the one instance then)."""
    if settings.PROCESSOR == "sandbox":
        return get_processor()
    return _build("sandbox", "", "")


def side_processor(livemode: bool) -> Processor:
    """The processor of a side, for work that knows its side (a record's
    `livemode`) but has no merchant row in hand."""
    return get_processor() if livemode else sandbox_processor()


def processor_of(merchant) -> Processor:
    """The processor of a merchant row's side: the test side's is always the
    sandbox."""
    return side_processor(merchant.livemode)


def processor_for(made_on: str) -> Processor | None:
    """The processor a charge, a refund or a payout was made on: anything more
    about that record must go there. The sandbox's records (test data, or a
    sandbox deployment's) always reach it; None for another processor's once
    the service uses another one."""
    if made_on == "sandbox":
        return sandbox_processor()
    processor = get_processor()
    return processor if processor.name == made_on else None


def processor_name() -> str:
    return settings.PROCESSOR
