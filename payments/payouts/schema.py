"""OpenAPI description of the merchant's payout account, payouts and their
settlement reports; imported by payments/schema.py."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import describe_fields
from config.api.schema import (
    CSV_FORMAT,
    KOBO,
    LIVEMODE,
    PAGINATION,
    TIMESTAMP,
    component,
    errors,
    list_envelope,
    nullable,
    obj,
    ok_envelope,
    path_id,
    string,
    with_csv,
)

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
            "livemode": LIVEMODE,
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

PAYOUT_ID = path_id("payout_id", "po", "The payout's identifier")
PAYOUT_FIELDS = {
    "id": string("`po_...`: also the transfer's reference at the bank."),
    "livemode": LIVEMODE,
    "status": string(
        "`pending` and `processing` while on its way, `paid`, `failed` (never "
        "paid: the money is back in the wallet) or `reversed` (paid, then "
        "returned by the bank: back in the wallet).",
        enum=["pending", "processing", "paid", "failed", "reversed"],
    ),
    "amount": {**KOBO, "minimum": 1},
    "currency": string(example="NGN"),
    "bank_code": string("CBN bank code of the account it went to."),
    "account_last4": string("Last four digits of that account."),
    "account_name": string("The account holder's name the bank gave."),
    "lines": {
        "type": "integer",
        "minimum": 0,
        "description": "The wallet lines it paid out (its settlement report).",
    },
    "failure_reason": string(),
    "created_at": TIMESTAMP,
    "paid_at": nullable(TIMESTAMP),
    "failed_at": nullable(TIMESTAMP),
    "reversed_at": nullable(TIMESTAMP),
}
PAYOUT = component("Payout", obj(PAYOUT_FIELDS))
SETTLEMENT_LINE = component(
    "SettlementLine",
    obj(
        {
            "payout_id": string("`po_...`"),
            "livemode": LIVEMODE,
            "transaction_id": string("The wallet transaction, `txn_...`."),
            "type": string(
                "`collection` (a deposit or installment), `refund` (a refund out "
                "of the wallet), `refund_returned` (a failed refund's money back), "
                "`dispute_held`, `dispute_released` or `dispute_lost` (a disputed "
                "collection held, returned, or lost with the fee on it given back).",
                enum=[
                    "collection",
                    "refund",
                    "refund_returned",
                    "dispute_held",
                    "dispute_released",
                    "dispute_lost",
                ],
            ),
            "order_reference": string("Your order reference."),
            "payment_plan_id": string("`plan_...`"),
            "installment_id": string(
                "`inst_...`; empty for a deposit, a payoff or a refund (and a "
                "dispute of one of them)."
            ),
            "refund_id": string("`rf_...` for a refund; empty otherwise."),
            "processor_reference": string(
                "The processor reference of the charge that collected the money "
                "(for a refund: of the collection it paid back)."
            ),
            "gross": {
                "type": "integer",
                "description": "Kobo collected (negative: paid back), signed from "
                "your point of view.",
            },
            "fee": {
                "type": "integer",
                "description": "Platform fee in kobo (negative on a refund: given "
                "back).",
            },
            "net": {
                "type": "integer",
                "description": "gross - fee: what the line added to the payout. "
                "The lines' `net` add up to the payout's amount.",
            },
            "currency": string(example="NGN"),
            "description": string(),
            "created_at": TIMESTAMP,
        }
    ),
)
SETTLEMENT = component(
    "Settlement",
    obj(
        {
            **PAYOUT_FIELDS,
            "lines": {
                "type": "array",
                "items": SETTLEMENT_LINE,
                "description": "A page of the lines it paid out, oldest first.",
            },
        }
    ),
)
PAYOUT_COLUMNS = (
    "`id, created_at, status, amount, currency, bank_code, account_last4, "
    "account_name, lines, paid_at, failed_at, reversed_at, failure_reason, "
    "livemode`."
)
SETTLEMENT_COLUMNS = (
    "`payout_id, transaction_id, created_at, type, order_reference, "
    "payment_plan_id, installment_id, refund_id, processor_reference, gross, fee, "
    "net, currency, description, livemode`; the `net` column adds up to the "
    "payout's amount."
)

extend_schema_view(
    get=extend_schema(
        operation_id="merchant_payouts",
        summary="Your payouts",
        description="Newest first. `?format=csv` (or `Accept: text/csv`) answers "
        "every payout as CSV ([CSV exports](/docs/api/#csv-exports)).",
        parameters=[MERCHANT_ID, *PAGINATION, CSV_FORMAT],
        responses=with_csv(list_envelope(PAYOUT), PAYOUT_COLUMNS),
    )
)(api.PayoutListApi)

extend_schema_view(
    get=extend_schema(
        operation_id="merchant_payout_settlement",
        summary="A payout's settlement report",
        description="Every wallet line the payout paid out, oldest first, with the "
        "order, plan, installment and processor reference of each, so a bank "
        "credit can be matched to orders: the lines' `net` add up to the payout's "
        "`amount` exactly. `total` counts the lines (paged with `limit`/`offset`); "
        "`?format=csv` answers them all ([settlement reports]"
        "(/docs/wallet/#settlement-reports)).",
        parameters=[MERCHANT_ID, PAYOUT_ID, *PAGINATION, CSV_FORMAT],
        responses=with_csv(
            ok_envelope(
                SETTLEMENT,
                total={
                    "type": "integer",
                    "minimum": 0,
                    "description": "The lines in all pages.",
                },
            ),
            SETTLEMENT_COLUMNS,
        ),
    )
)(api.PayoutSettlementApi)
