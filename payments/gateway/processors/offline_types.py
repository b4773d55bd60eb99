"""What a processor is asked and answers about a charge the customer pays by
bank transfer or USSD (DESIGN section 17): part of the processor interface,
importable from `base` as well."""

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class OfflineCharge:
    """A one-off charge that waits for the customer to pay it (DESIGN section
    17): a bank account to transfer the exact amount to, or a USSD code to
    dial, until `expires_at`. `status` is "pending" (waiting for the customer;
    `charge.success` arrives when the money lands, and verifying the reference
    confirms it) or "failed" (the processor said no at once:
    `gateway_response` says why)."""

    reference: str
    channel: str  # PayChannel.BANK_TRANSFER or PayChannel.USSD
    status: str  # "pending" or "failed"
    amount: int
    currency: str = "NGN"
    expires_at: datetime | None = None
    # Bank transfer: the account that takes this one transfer.
    bank_name: str = ""
    account_number: str = ""
    account_name: str = ""
    # USSD: the code to dial.
    ussd_code: str = ""
    display_text: str = ""
    gateway_response: str = ""
    processor_id: str = ""

    @property
    def pending(self) -> bool:
        return self.status == "pending"


@dataclass(frozen=True)
class OfflineChargeRequest:
    """What `Processor.charge_offline` was asked, its arguments checked
    (`offline_arguments_check`): what an adapter's `_offline_charge_open`
    opens the charge with."""

    email: str
    amount: int
    reference: str
    channel: str  # PayChannel.OFFLINE
    expires_at: datetime
    ussd_bank: str  # a key of USSD_BANKS for USSD, else ""
    currency: str
    metadata: dict
