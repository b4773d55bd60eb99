"""HTTP in/out for the merchant's payout account."""

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
    }
