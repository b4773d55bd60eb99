"""The one processor interface every adapter implements (DESIGN section 9).

Results are frozen dataclasses; failures are the domain errors of
payments.gateway.errors:
- ProcessorTimeout / ProcessorError: no usable answer (timeout, connection error,
  5xx, malformed body). For a POST the outcome is unknown: verify the reference
  before trying again.
- ProcessorRefused: the processor answered and said no.
- InvalidOtp (submit_otp only): the code was wrong and the reference still lives.
Charge outcomes (declined, insufficient funds) are results, not exceptions.
"""

from abc import ABC, abstractmethod
from dataclasses import dataclass
from datetime import date, datetime

from .dispute_types import DisputeEvidence, ProcessorDispute
from .offline_types import OfflineCharge, OfflineChargeRequest
from .payout_types import (
    Bank,
    ResolvedAccount,
    RevokedMandate,
    TransferRecipient,
    TransferResult,
)


class TransactionStatus:
    SUCCESS = "success"
    FAILED = "failed"
    ABANDONED = "abandoned"  # the customer never finished the authorization page
    PENDING = "pending"


class FailureReason:
    """Normalized reasons a charge failed; soft or hard in payments/gateway/
    declines.py, the one table every caller reads."""

    INSUFFICIENT_FUNDS = "insufficient_funds"
    CARD_EXPIRED = "card_expired"
    DO_NOT_HONOR = "do_not_honor"
    DECLINED = "declined"
    AUTHORIZATION_REVOKED = "authorization_revoked"
    INVALID_ACCOUNT = "invalid_account"
    PROCESSOR_ERROR = "processor_error"


class ChargeStatus:
    """Replies of the Charge API (bank accounts), as Paystack names them."""

    SEND_OTP = "send_otp"
    SEND_BIRTHDAY = "send_birthday"
    SEND_PHONE = "send_phone"
    OPEN_URL = "open_url"
    SUCCESS = "success"
    FAILED = "failed"
    PENDING = "pending"
    # Replies the Charge API can give that mandates here do not support.
    SEND_PIN = "send_pin"
    SEND_ADDRESS = "send_address"
    PAY_OFFLINE = "pay_offline"


class PayChannel:
    """How a customer's money came in, as every payment event names it
    (`channel`): a saved or new card, a bank-account mandate, or one of the two
    one-off channels that wait for the customer (DESIGN section 17)."""

    CARD = "card"
    BANK_ACCOUNT = "bank_account"
    BANK_TRANSFER = "bank_transfer"
    USSD = "ussd"

    # The channels of a charge the customer completes themselves, later.
    OFFLINE = (BANK_TRANSFER, USSD)
    ALL = (CARD, BANK_ACCOUNT, BANK_TRANSFER, USSD)


# The USSD codes a customer may choose (Paystack's `ussd.type`), with the bank
# each dials into, as the pay page and the checkout list them.
USSD_BANKS = {
    "737": "Guaranty Trust Bank",
    "919": "United Bank for Africa",
    "822": "Sterling Bank",
    "966": "Zenith Bank",
}


@dataclass(frozen=True)
class Authorization:
    """A reusable authorization: what later charges need (card or bank account)."""

    authorization_code: str
    channel: str  # "card" or "bank"
    signature: str = ""  # same card -> same signature (cards only)
    brand: str = ""  # "visa", "mastercard", "verve" (cards)
    last4: str = ""
    exp_month: str = ""
    exp_year: str = ""
    bank: str = ""
    account_name: str = ""
    reusable: bool = True


@dataclass(frozen=True)
class InitializedTransaction:
    reference: str
    authorization_url: str
    access_code: str = ""


@dataclass(frozen=True)
class TransactionResult:
    """Outcome of a card transaction or of charging a stored authorization."""

    reference: str
    status: str  # TransactionStatus
    amount: int
    currency: str = "NGN"
    gateway_response: str = ""
    failure_reason: str = ""  # FailureReason when status is failed
    processor_id: str = ""
    paid_at: datetime | None = None
    authorization: Authorization | None = None
    # PayChannel the money came by, "" when the processor did not say.
    channel: str = ""

    @property
    def succeeded(self) -> bool:
        return self.status == TransactionStatus.SUCCESS


@dataclass(frozen=True)
class ChargeStep:
    """One reply of the Charge API for a bank account."""

    reference: str
    status: str  # ChargeStatus
    display_text: str = ""
    url: str = ""
    amount: int = 0
    gateway_response: str = ""
    processor_id: str = ""
    authorization: Authorization | None = None


@dataclass(frozen=True)
class DirectDebitRequest:
    """A direct-debit authorization request: the customer consents at
    `redirect_url`; `reference` (the processor's own) verifies it later."""

    reference: str
    redirect_url: str
    access_code: str = ""


@dataclass(frozen=True)
class DirectDebitAuthorization:
    """Where a direct-debit authorization request stands. Only an active one
    with a code can be charged (activation may take hours after consent)."""

    reference: str
    active: bool
    authorization_code: str = ""
    bank: str = ""

    @property
    def chargeable(self) -> bool:
        return self.active and bool(self.authorization_code)


@dataclass(frozen=True)
class RefundResult:
    refund_id: str
    transaction_reference: str  # "" when the processor's reply does not name it
    amount: int
    status: str  # pending, processing, processed, failed, needs-attention
    currency: str = "NGN"
    # The note the refund was asked with: the service's own reference for it
    # (payments.gateway.services.refunds), which finds it again after a lost answer.
    merchant_note: str = ""


# The service's reference for the refund of a verification charge (asked as its
# `merchant_note`, like a plan refund's part): the charge's reference under this
# prefix. The sandbox gives such a refund back at once, as it always did.
VERIFICATION_REFUND_PREFIX = "vr_"


def verification_refund_reference(charge_reference: str) -> str:
    return f"{VERIFICATION_REFUND_PREFIX}{charge_reference}"


class Processor(ABC):
    """Everything the service asks of a payment processor."""

    name: str
    # Sites of the processor's own pages a customer is sent to after a form of
    # ours (the card page behind `authorization_url`): our pages' CSP must let
    # forms lead there.
    hosted_page_origins: tuple[str, ...] = ()

    # Cards: redirect flow, then recurring charges.
    @abstractmethod
    def initialize_transaction(
        self,
        *,
        email: str,
        amount: int,
        reference: str,
        callback_url: str,
        currency: str = "NGN",
        channels: tuple[str, ...] = ("card",),
        metadata: dict | None = None,
    ) -> InitializedTransaction: ...

    @abstractmethod
    def verify_transaction(self, *, reference: str) -> TransactionResult | None:
        """None when the processor knows no transaction with this reference."""

    # One-off charges the customer completes: bank transfer and USSD.
    def charge_offline(
        self,
        *,
        email: str,
        amount: int,
        reference: str,
        channel: str,
        expires_at: datetime,
        ussd_bank: str = "",
        currency: str = "NGN",
        metadata: dict | None = None,
    ) -> OfflineCharge:
        """Open a charge of exactly `amount` under `reference` that the customer
        pays by `channel` (PayChannel.OFFLINE; `ussd_bank` is a key of
        USSD_BANKS for USSD) until `expires_at`. A POST: on ProcessorTimeout or
        ProcessorError the outcome is unknown, verify the reference."""
        offline_arguments_check(channel, ussd_bank)
        return self._offline_charge_open(
            OfflineChargeRequest(
                email=email,
                amount=amount,
                reference=reference,
                channel=channel,
                expires_at=expires_at,
                ussd_bank=ussd_bank,
                currency=currency,
                metadata=metadata or {},
            )
        )

    @abstractmethod
    def _offline_charge_open(self, request: OfflineChargeRequest) -> OfflineCharge:
        """The adapter's half of `charge_offline` (its arguments checked)."""

    @abstractmethod
    def charge_authorization(
        self,
        *,
        email: str,
        amount: int,
        authorization_code: str,
        reference: str,
        currency: str = "NGN",
        metadata: dict | None = None,
    ) -> TransactionResult: ...

    @abstractmethod
    def partial_debit(
        self,
        *,
        email: str,
        amount: int,
        at_least: int,
        authorization_code: str,
        reference: str,
        currency: str = "NGN",
    ) -> TransactionResult:
        """Collect what the authorization has of `amount`, down to `at_least`
        (Paystack's `partial_debit`): a success's `amount` is what was
        collected; failed when not even `at_least` is there."""

    # Bank accounts: the Charge API and its follow-up steps.
    @abstractmethod
    def charge_bank(
        self,
        *,
        email: str,
        amount: int,
        reference: str,
        bank_code: str,
        account_number: str,
        currency: str = "NGN",
    ) -> ChargeStep: ...

    @abstractmethod
    def submit_otp(self, *, reference: str, otp: str) -> ChargeStep: ...

    @abstractmethod
    def submit_birthday(self, *, reference: str, birthday: date) -> ChargeStep: ...

    @abstractmethod
    def submit_phone(self, *, reference: str, phone: str) -> ChargeStep: ...

    @abstractmethod
    def check_charge(self, *, reference: str) -> ChargeStep: ...

    # Bank accounts: a direct-debit authorization, for when the Charge API's
    # authorization cannot be charged again.
    @abstractmethod
    def initialize_direct_debit(
        self, *, email: str, callback_url: str, bank_code: str, account_number: str
    ) -> DirectDebitRequest: ...

    @abstractmethod
    def verify_direct_debit(self, *, reference: str) -> DirectDebitAuthorization | None:
        """None when the processor knows no authorization request by this reference."""

    @abstractmethod
    def refund(
        self,
        *,
        transaction_reference: str,
        amount: int | None = None,
        currency: str | None = None,
        merchant_note: str = "",
        customer_note: str = "",
    ) -> RefundResult:
        """Ask for a refund of a transaction (the whole of what is left of it
        when `amount` is None). Not idempotent: a lost answer is found again
        with `list_refunds` by its `merchant_note`."""

    @abstractmethod
    def fetch_refund(self, *, refund_id: str) -> RefundResult | None:
        """Where a refund stands now; None when the processor knows no such refund."""

    @abstractmethod
    def list_refunds(self, *, transaction_reference: str) -> list[RefundResult]:
        """Every refund of a transaction (none when it has none)."""

    @abstractmethod
    def list_banks(self) -> list[Bank]: ...

    @abstractmethod
    def resolve_account(
        self, *, bank_code: str, account_number: str
    ) -> ResolvedAccount: ...

    @abstractmethod
    def create_transfer_recipient(
        self, *, name: str, bank_code: str, account_number: str, currency: str = "NGN"
    ) -> TransferRecipient: ...

    @abstractmethod
    def transfer(
        self,
        *,
        amount: int,
        recipient_code: str,
        reference: str,
        reason: str,
        currency: str = "NGN",
    ) -> TransferResult: ...

    @abstractmethod
    def verify_transfer(self, *, reference: str) -> TransferResult | None:
        """None when the processor knows no transfer with this reference."""

    @abstractmethod
    def list_revoked_mandates(self) -> list[RevokedMandate]: ...

    @abstractmethod
    def deactivate_authorization(self, *, authorization_code: str) -> None:
        """Ask the processor to stop honouring a saved card or mandate for good
        (a customer's erasure, DESIGN section 18); raises ProcessorError when it
        could not be asked."""

    # --- disputes (DESIGN section 19) --------------------------------------

    @abstractmethod
    def fetch_dispute(self, *, dispute_id: str) -> ProcessorDispute | None:
        """Where a dispute stands now (every dispute event is re-read so);
        None when the processor knows no such dispute."""

    @abstractmethod
    def answer_dispute(
        self, *, dispute_id: str, evidence: DisputeEvidence, refund_amount: int
    ) -> ProcessorDispute:
        """Contest a dispute: upload each file to the processor's upload URL,
        send the evidence fields, then resolve it as declined with the
        uploaded file named. Raises ProcessorRefused when the processor says
        no (e.g. the deadline passed), ProcessorError when it did not answer:
        asking again is safe (the answer replaces the last one)."""

    @abstractmethod
    def accept_dispute(
        self, *, dispute_id: str, refund_amount: int, message: str
    ) -> ProcessorDispute:
        """Accept a dispute: the customer keeps `refund_amount`."""


def offline_arguments_check(channel: str, ussd_bank: str) -> None:
    """A channel other than transfer or USSD, or a USSD bank not offered, is a
    caller's bug (the API checks what a person chose): no processor call."""
    if channel not in PayChannel.OFFLINE:
        raise ValueError(f"charge_offline takes {PayChannel.OFFLINE}, not {channel!r}")
    if channel == PayChannel.USSD and ussd_bank not in USSD_BANKS:
        raise ValueError(f"USSD needs a bank of USSD_BANKS, not {ussd_bank!r}")
