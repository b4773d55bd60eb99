"""The sandbox's complete and expire endpoints (`POST /api/v1/sandbox/payments/
{id}/complete` and `.../expire`, installments/early/sandbox.py) reach a deposit
paid by bank transfer or USSD at the hosted checkout too: its id is `pay_...`
like an early payment's, and it is registered beside them (checkout/apps.py).
A completion goes through the processor's `charge.success` path and settles
the deposit as Paystack's would (services/offline.py); an expiry ends it as the
sweep does."""

from contextlib import suppress

from config.api.errors import NotFound
from config.api.formats import iso_utc
from installments.deposits.models import DepositAttempt
from installments.early.errors import PaymentNotPending
from installments.early.sandbox import SandboxPayments
from payments.gateway.errors import (
    SandboxChargeExpired,
    SandboxChargeNotFound,
    SandboxChargeNotPending,
)
from payments.gateway.processors.base import PayChannel
from payments.gateway.services.sandbox_offline import (
    sandbox_offline_complete,
    sandbox_offline_expire,
)

from .services.offline import deposit_offline_by_public_id, deposit_offline_expire


def _find(merchant, public_id: str) -> DepositAttempt:
    attempt = deposit_offline_by_public_id(public_id)
    if attempt is None or attempt.plan.merchant_id != merchant.pk:
        raise NotFound("No payment of yours has this id.")
    return attempt


def _pending(attempt: DepositAttempt) -> None:
    if attempt.status != DepositAttempt.Status.PROCESSING:
        if attempt.failure_reason == "expired":
            raise SandboxChargeExpired()
        raise PaymentNotPending()


def _complete(attempt: DepositAttempt, amount: int | None) -> DepositAttempt:
    _pending(attempt)
    sandbox_offline_complete(reference=attempt.reference, amount=amount)
    return DepositAttempt.objects.select_related("plan").get(pk=attempt.pk)


def _expire(attempt: DepositAttempt) -> DepositAttempt:
    _pending(attempt)
    # Never opened, or paid meanwhile: verifying below says which.
    with suppress(SandboxChargeNotFound, SandboxChargeNotPending):
        sandbox_offline_expire(reference=attempt.reference)
    return deposit_offline_expire(attempt)


def deposit_payment_output(attempt: DepositAttempt) -> dict:
    """The deposit as the sandbox endpoints answer it, in the shape of an early
    payment (installments/early/serializers.py::early_payment_output)."""
    if attempt.status == DepositAttempt.Status.PROCESSING:
        status = "pending"
    elif attempt.failure_reason == "expired":
        status = "expired"
    else:
        status = attempt.status
    transfer = attempt.channel == PayChannel.BANK_TRANSFER and attempt.account_number
    ussd = attempt.channel == PayChannel.USSD and attempt.ussd_code
    return {
        "id": attempt.public_id,
        "payment_plan_id": attempt.plan.public_id,
        "livemode": attempt.plan.merchant.livemode,
        "kind": "deposit",
        "installment_ids": [],
        "status": status,
        "channel": attempt.channel,
        "amount": attempt.amount,
        "currency": attempt.currency,
        "reference": attempt.reference,
        "expires_at": iso_utc(attempt.expires_at),
        "transfer": {
            "bank_name": attempt.bank_name,
            "account_number": attempt.account_number,
            "account_name": attempt.account_name,
        }
        if transfer
        else None,
        "ussd": {"code": attempt.ussd_code} if ussd else None,
        "display_text": None,
        "failure_reason": attempt.failure_reason or None,
        "created_at": iso_utc(attempt.created_at),
        "settled_at": iso_utc(attempt.settled_at),
    }


DEPOSITS = SandboxPayments(
    find=_find, complete=_complete, expire=_expire, output=deposit_payment_output
)
