"""A processor's dispute (chargeback) and the merchant's answer to one (DESIGN
section 19; reference/paystack.md, "Disputes"), as every adapter returns and
takes them."""

from dataclasses import dataclass, field
from datetime import datetime


class DisputeState:
    """Where a dispute stands at the processor, as Paystack names it."""

    AWAITING_MERCHANT = "awaiting-merchant-feedback"
    AWAITING_BANK = "awaiting-bank-feedback"
    PENDING = "pending"
    RESOLVED = "resolved"


class DisputeResolution:
    """How a resolved dispute ended: the merchant accepted it (the customer
    keeps the money) or it was declined (the merchant keeps it)."""

    MERCHANT_ACCEPTED = "merchant-accepted"
    DECLINED = "declined"


@dataclass(frozen=True)
class ProcessorDispute:
    """One dispute as the processor tells it now (`GET /dispute/:id`)."""

    dispute_id: str
    transaction_reference: str  # the charge it disputes (our reference)
    amount: int  # kobo the customer's bank asks back
    status: str  # DisputeState
    currency: str = "NGN"
    resolution: str = ""  # DisputeResolution once resolved
    category: str = ""  # "chargeback" or "fraud"
    reason: str = ""  # the customer's words, as the processor passes them on
    due_at: datetime | None = None  # the merchant's answer is due by then

    @property
    def won(self) -> bool | None:
        """True when resolved for the merchant, False against, None while open."""
        if self.status != DisputeState.RESOLVED:
            return None
        return self.resolution == DisputeResolution.DECLINED


@dataclass(frozen=True)
class EvidenceFile:
    """One file the merchant's answer carries (PDF, JPEG or PNG)."""

    filename: str
    content_type: str
    content: bytes = field(repr=False)


@dataclass(frozen=True)
class DisputeEvidence:
    """The merchant's answer: the processor's evidence fields and the files."""

    customer_email: str
    customer_name: str
    customer_phone: str
    service_details: str
    delivery_address: str = ""
    delivery_date: str = ""  # YYYY-MM-DD, or ""
    message: str = ""  # the merchant's words to the bank
    files: tuple[EvidenceFile, ...] = ()
