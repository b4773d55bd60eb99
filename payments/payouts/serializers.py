"""HTTP in/out for the merchant's payout account."""

from config.api.formats import iso_utc
from config.api.serializers import StrictCharField, StrictSerializer

from ..methods.serializers import validate_account_number


class PayoutAccountInput(StrictSerializer):
    bank_code = StrictCharField(max_length=16)
    account_number = StrictCharField(max_length=20)

    def validate_account_number(self, value):
        return validate_account_number(value)


def payout_account_output(merchant) -> dict:
    return {
        "payout_bank_code": merchant.payout_bank_code,
        "payout_account_number": merchant.payout_account_number,
        "payout_account_name": merchant.payout_account_name,
        "livemode": merchant.livemode,
    }


def payout_output(payout) -> dict:
    """A payout; `lines` counts the wallet lines it paid out (its settlement
    report), when the query annotated them."""
    return {
        "id": payout.public_id,
        "livemode": payout.merchant.livemode,
        "status": payout.status,
        "amount": payout.amount,
        "currency": payout.currency,
        "bank_code": payout.bank_code,
        "account_last4": payout.account_last4,
        "account_name": payout.account_name,
        "lines": payout.line_count,
        "failure_reason": payout.failure_reason,
        "created_at": iso_utc(payout.created_at),
        "paid_at": iso_utc(payout.paid_at),
        "failed_at": iso_utc(payout.failed_at),
        "reversed_at": iso_utc(payout.reversed_at),
    }


def settlement_line_output(line) -> dict:
    """One line of a settlement report (`SettlementLine`)."""
    return {
        "payout_id": line.payout_id,
        "livemode": line.livemode,
        "transaction_id": line.transaction_id,
        "type": line.type,
        "order_reference": line.order_reference,
        "payment_plan_id": line.payment_plan_id,
        "installment_id": line.installment_id,
        "refund_id": line.refund_id,
        "processor_reference": line.processor_reference,
        "gross": line.gross,
        "fee": line.fee,
        "net": line.net,
        "currency": line.currency,
        "description": line.description,
        "created_at": iso_utc(line.created_at),
    }
