"""Bank transfer and USSD at the sandbox (DESIGN section 17), a mixin of
SandboxProcessor.

`charge_offline` opens a pending charge under the caller's reference and
answers a fake account (or USSD code) derived from that reference, so the same
reference always shows the same one. Nothing the customer does pays it: only
`offline_complete` does (the sandbox's complete call, when a test decides the
money lands), and only before `expires_at`, for exactly the charge's amount, as
Paystack takes a transfer. `offline_expire` ends it early; once `expires_at`
has passed it is over as well, and verifying it says `abandoned`.
"""

import hashlib

from django.db import IntegrityError, transaction
from django.utils import timezone

from config.money import TEXT, format_kobo

from ...errors import (
    ProcessorRefused,
    SandboxAmountMismatch,
    SandboxChargeExpired,
    SandboxChargeNotFound,
    SandboxChargeNotPending,
)
from ...models import SandboxTransaction
from ..base import (
    OfflineCharge,
    OfflineChargeRequest,
    PayChannel,
    TransactionStatus,
)
from .banks import _duplicate_reference

SANDBOX_BANK = "Sandbox Bank"
SANDBOX_ACCOUNT_NAME = "Sandbox / Checkout"
_FAKE = "sandbox: a fake {what}; only the sandbox's complete call pays it"
_EXPIRED = {
    PayChannel.BANK_TRANSFER: "The account expired before a transfer arrived",
    PayChannel.USSD: "The USSD code expired before the customer paid",
}
Status = SandboxTransaction.Status


def _digits(reference: str, count: int) -> str:
    number = int(hashlib.sha256(reference.encode()).hexdigest(), 16)
    return f"{number % 10**count:0{count}d}"


def sandbox_account_number(reference: str) -> str:
    """The fake 10-digit account a transfer under `reference` is asked to."""
    return _digits(reference, 10)


def sandbox_ussd_code(reference: str, bank: str) -> str:
    """The fake code to dial for `reference` at `bank` (`*737*000*1234#`)."""
    return f"*{bank}*000*{_digits(reference, 4)}#"


def offline_expired(row: SandboxTransaction) -> bool:
    """Past its `expires_at` (timezone.now(), so a test's time travel moves it)."""
    return row.expires_at is not None and timezone.now() >= row.expires_at


def offline_verified(row: SandboxTransaction) -> tuple[str, str]:
    """(TransactionStatus, gateway response) of verifying an offline charge:
    pending while it waits, abandoned once ended or past its expiry."""
    if row.status == Status.SUCCESS:
        return TransactionStatus.SUCCESS, row.gateway_response
    if row.status == Status.PENDING and not offline_expired(row):
        return TransactionStatus.PENDING, "Awaiting the customer's payment"
    return TransactionStatus.ABANDONED, row.gateway_response or _EXPIRED[row.channel]


def transaction_channel(row: SandboxTransaction) -> str:
    """The PayChannel a sandbox transaction's money came (or would come) by."""
    if row.kind == SandboxTransaction.Kind.OFFLINE_CHARGE:
        return row.channel
    if row.kind == SandboxTransaction.Kind.CARD_CHECKOUT:
        return PayChannel.CARD
    if row.kind == SandboxTransaction.Kind.BANK_CHARGE:
        return PayChannel.BANK_ACCOUNT
    auth = row.authorization
    if row.kind == SandboxTransaction.Kind.AUTHORIZATION_CHARGE and auth is not None:
        return PayChannel.CARD if auth.channel == "card" else PayChannel.BANK_ACCOUNT
    return ""


def _offline_charge(row: SandboxTransaction) -> OfflineCharge:
    """The charge as `charge_offline` answers it; `status` is the sandbox's
    own word for where it stands now (pending, success or abandoned)."""
    amount = format_kobo(row.amount, row.currency, style=TEXT)
    status = offline_verified(row)[0]
    if row.channel == PayChannel.USSD:
        code = sandbox_ussd_code(row.reference, row.bank_code)
        details = {
            "ussd_code": code,
            "display_text": f"Please dial {code} on your mobile phone to pay "
            f"{amount} ({_FAKE.format(what='code')}).",
        }
    else:
        details = {
            "bank_name": SANDBOX_BANK,
            "account_number": row.account_number,
            "account_name": SANDBOX_ACCOUNT_NAME,
            "display_text": f"Please transfer exactly {amount} to the account "
            f"specified ({_FAKE.format(what='account')}).",
        }
    return OfflineCharge(
        reference=row.reference,
        channel=row.channel,
        status=status,
        amount=row.amount,
        currency=row.currency,
        expires_at=row.expires_at,
        gateway_response=row.gateway_response,
        processor_id=str(row.pk),
        **details,
    )


def _refused(message: str) -> ProcessorRefused:
    return ProcessorRefused(
        f"The payment processor refused the request: {message}",
        processor_message=message,
        processor_status=400,
    )


def _offline_rows():
    return SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.OFFLINE_CHARGE
    )


def _offline_locked(reference: str) -> SandboxTransaction:
    row = (
        _offline_rows()
        .select_for_update(of=("self",))
        .filter(reference=reference)
        .first()
    )
    if row is None:
        raise SandboxChargeNotFound()
    return row


def _payable_check(row: SandboxTransaction, amount: int | None) -> None:
    if row.status == Status.SUCCESS:
        raise SandboxChargeNotPending(
            "This bank transfer or USSD payment was already paid: the account "
            "takes one payment."
        )
    if row.status != Status.PENDING or offline_expired(row):
        raise SandboxChargeExpired()
    if amount is not None and amount != row.amount:
        raise SandboxAmountMismatch(
            f"A payment of {amount} kobo is refused: this one takes exactly "
            f"{row.amount} kobo (Paystack returns another amount to the sender)."
        )


class SandboxOfflineCharges:
    """The transfer and USSD half of SandboxProcessor (mixed into it)."""

    def _offline_charge_open(self, request: OfflineChargeRequest) -> OfflineCharge:
        if request.amount <= 0:
            raise _refused("Invalid Amount Sent")
        if request.expires_at <= timezone.now():
            raise _refused("account_expires_at must be in the future")
        fields = {
            "reference": request.reference,
            "kind": SandboxTransaction.Kind.OFFLINE_CHARGE,
            "email": request.email,
            "amount": request.amount,
            "currency": request.currency,
            "channel": request.channel,
            "expires_at": request.expires_at,
            "metadata": request.metadata,
        }
        if request.channel == PayChannel.USSD:
            fields["bank_code"] = request.ussd_bank
        else:
            fields["account_number"] = sandbox_account_number(request.reference)
        try:
            with transaction.atomic():
                row = SandboxTransaction.objects.create(**fields)
        except IntegrityError:
            raise _duplicate_reference() from None
        return _offline_charge(row)

    # -- sandbox only: what the customer's bank does ---------------------------

    def offline_charge(self, *, reference: str) -> OfflineCharge | None:
        row = _offline_rows().filter(reference=reference).first()
        return _offline_charge(row) if row is not None else None

    def offline_complete(self, *, reference: str, amount: int | None = None):
        """The customer pays `amount` (the charge's own when None): the charge
        is paid, or refused as Paystack refuses a transfer (after expiry, of
        another amount, into an account already paid), changing nothing."""
        with transaction.atomic():
            row = _offline_locked(reference)
            _payable_check(row, amount)
            row.gateway_response = "Approved"
            row.transition_to(Status.SUCCESS, update_fields=["gateway_response"])
        return _offline_charge(row)

    def offline_expire(self, *, reference: str) -> OfflineCharge:
        """End a pending charge now (one already ended stays as it is)."""
        with transaction.atomic():
            row = _offline_locked(reference)
            if row.status == Status.SUCCESS:
                raise SandboxChargeNotPending(
                    "This bank transfer or USSD payment was already paid: it "
                    "cannot expire."
                )
            if row.status == Status.PENDING:
                row.gateway_response = _EXPIRED[row.channel]
                row.transition_to(Status.ABANDONED, update_fields=["gateway_response"])
        return _offline_charge(row)
