"""OpenAPI description of the merchant's payout account; imported by
payments/schema.py."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import describe_fields
from config.api.schema import component, errors, obj, ok_envelope, path_id, string

from ..methods.schema import ACCOUNT_NUMBER, BANK_CODE
from . import api
from .serializers import PayoutAccountInput

describe_fields(PayoutAccountInput, bank_code=BANK_CODE, account_number=ACCOUNT_NUMBER)

MERCHANT_ID = path_id("merchant_id", "mer", "The merchant's identifier")
PAYOUT_ACCOUNT = component(
    "PayoutAccount",
    obj(
        {
            "payout_bank_code": string("CBN bank code."),
            "payout_account_number": string("10-digit NUBAN."),
            "payout_account_name": string("Resolved by the processor; read-only."),
        }
    ),
)

extend_schema_view(
    put=extend_schema(
        operation_id="merchant_payout_account_set",
        summary="Set the bank account payouts go to",
        description="The bank must be one of the bank list's; the account holder's "
        "name is resolved by the processor (422 `account_not_resolved` when the "
        "bank cannot find the account; 502/504 when the processor fails).",
        parameters=[MERCHANT_ID],
        request=PayoutAccountInput,
        responses={200: ok_envelope(PAYOUT_ACCOUNT), **errors(422, 502, 504)},
    )
)(api.PayoutAccountApi)
