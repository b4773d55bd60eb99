"""HTTP in for paying early (one installment or the payoff, by a saved method,
bank transfer or USSD), and the early payment's representation."""

from rest_framework import serializers

from config.api.formats import iso_utc
from config.api.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictSerializer,
)
from payments.gateway.processors.base import USSD_BANKS, PayChannel

from .models import EarlyPayment

OFFLINE_CHANNELS = ", ".join(f'"{channel}"' for channel in PayChannel.OFFLINE)
USSD_CODES = ", ".join(f'"{code}"' for code in USSD_BANKS)


class PayEarlyInput(StrictSerializer):
    """`{installment_id}` pays one installment, `{payoff: true}` everything left;
    `payment_method_id` chooses the method (the default otherwise), or
    `channel` ("bank_transfer", or "ussd" with `bank`) pays without one."""

    installment_id = StrictCharField(max_length=40, required=False)
    payoff = StrictBooleanField(required=False)
    payment_method_id = StrictCharField(max_length=40, required=False)
    channel = StrictCharField(max_length=20, required=False)
    bank = StrictCharField(max_length=8, required=False)

    def validate_channel(self, value):
        if value not in PayChannel.OFFLINE:
            raise serializers.ValidationError(
                f"channel must be {OFFLINE_CHANNELS} (leave it out to pay with a "
                "saved payment method)."
            )
        return value

    def validate_bank(self, value):
        if value not in USSD_BANKS:
            raise serializers.ValidationError(
                f"bank must be the USSD code of the customer's bank: {USSD_CODES}."
            )
        return value

    def validate(self, data):
        if data.get("payoff", False) == ("installment_id" in data):
            raise serializers.ValidationError(
                "Send installment_id to pay one installment, or payoff: true to pay "
                "everything left (not both)."
            )
        channel = data.get("channel")
        if channel and "payment_method_id" in data:
            raise serializers.ValidationError(
                "Send payment_method_id to pay with a saved method, or channel to "
                "pay by bank transfer or USSD (not both)."
            )
        if (channel == PayChannel.USSD) != ("bank" in data):
            raise serializers.ValidationError(
                f'Send bank ({USSD_CODES}) with channel "ussd", and only then.'
            )
        return data


def early_payment_status(payment: EarlyPayment) -> str:
    """The API's status: `pending` while in flight (a transfer or USSD payment
    waiting for the customer's money), `succeeded`, `failed`, or `expired` (a
    transfer or USSD payment not paid in time; `failed` in the model, with
    the reason `expired`)."""
    if payment.status == EarlyPayment.Status.PROCESSING:
        return "pending"
    if payment.expired:
        return "expired"
    return payment.status


def _transfer(payment: EarlyPayment) -> dict | None:
    if payment.channel != PayChannel.BANK_TRANSFER or not payment.instructions:
        return None
    return {
        name: payment.instructions.get(name, "")
        for name in ("bank_name", "account_number", "account_name")
    }


def _ussd(payment: EarlyPayment) -> dict | None:
    if payment.channel != PayChannel.USSD or not payment.instructions:
        return None
    return {"code": payment.instructions.get("ussd_code", "")}


def early_payment_output(payment: EarlyPayment) -> dict:
    """The payment as `GET .../payments/{id}` and the 202 of a transfer or
    USSD payment answer it; `transfer` and `ussd` are null but for their
    channel (and while the processor gave nothing to pay to)."""
    items = payment.items.select_related("installment").order_by(
        "installment__sequence"
    )
    status = early_payment_status(payment)
    return {
        "id": payment.public_id,
        "payment_plan_id": payment.plan.public_id,
        "livemode": payment.plan.merchant.livemode,
        "kind": payment.kind,
        "installment_ids": [item.installment.public_id for item in items],
        "status": status,
        "channel": payment.channel,
        "amount": payment.amount,
        "currency": payment.currency,
        "reference": payment.reference,
        "expires_at": iso_utc(payment.expires_at),
        "transfer": _transfer(payment),
        "ussd": _ussd(payment),
        "display_text": payment.instructions.get("display_text") or None,
        "failure_reason": payment.failure_reason or None,
        "created_at": iso_utc(payment.created_at),
        "settled_at": iso_utc(payment.settled_at),
    }
