"""OpenAPI description of the merchant's wallet (endpoint 9), payout account and
the inbound processor events (endpoint 24); imported by payments/schema.py."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.schema import (
    KOBO,
    PAGINATION,
    PROCESSOR_SIGNATURE,
    TIMESTAMP,
    component,
    errors,
    obj,
    ok_envelope,
    path_id,
    string,
)

from .api import inbound, wallet
from .serializers import (
    PayoutAccountInput,
)

CUSTOMER_ID = path_id("customer_id", "cus", "The customer's identifier")
METHOD_ID = path_id("method_id", "pm", "The payment method's identifier")

# --- the merchant's wallet (endpoint 9) and payout account (DESIGN section 8) ---

MERCHANT_ID = path_id("merchant_id", "mer", "The merchant's identifier")
WALLET_TYPES = ["collection", "payout", "payout_returned"]
WALLET_RESOURCE_TYPES = ["installment", "payment_plan", "payout"]
WALLET_TRANSACTION = component(
    "WalletTransaction",
    obj(
        {
            "id": string("`txn_...`"),
            "type": string(
                "`collection` (a deposit or installment collected), `payout` (left "
                "for your bank), `payout_returned` (a payout came back).",
                enum=WALLET_TYPES,
            ),
            "amount": {
                "type": "integer",
                "description": "Gross movement in kobo, signed from the merchant's "
                "point of view (positive in, negative out).",
            },
            "fee": {**KOBO, "minimum": 0, "description": "Platform fee (2.5%)."},
            "net": {
                "type": "integer",
                "description": "amount - fee: the change to the available balance.",
            },
            "reference": string(
                "The processor reference of the charge or transfer that moved the "
                "money: `inst_..._a1` (`_a2`, `_a1m2`, ... on a retry or another "
                "payment method) for an installment (the `processorReference` of "
                "its `installment.paid` event), `plan_..._d1` (`_d2`, ... after a "
                "declined try) for a deposit, the payout id `po_...` (the "
                "`reference` of `transfer.success`) for a payout."
            ),
            "resource_type": string(
                "What the money was for: `installment`, `payment_plan` (its "
                "deposit) or `payout`.",
                enum=WALLET_RESOURCE_TYPES,
            ),
            "resource_id": string(
                "Its id: `inst_...`, `plan_...` or `po_...` (the events' `resourceId`)."
            ),
            "description": string(),
            "created_at": TIMESTAMP,
        }
    ),
)
WALLET = component(
    "Wallet",
    obj(
        {
            "merchant_id": string("`mer_...`"),
            "currency": string(example="NGN"),
            "available_balance": {
                **KOBO,
                "minimum": 0,
                "description": "Owed now; paid in the next payout.",
            },
            "pending_payout": {
                **KOBO,
                "minimum": 0,
                "description": "Payouts on their way to the bank.",
            },
            "total_paid_out": {
                **KOBO,
                "minimum": 0,
                "description": "Paid to the bank so far, less payouts sent back.",
            },
            "transactions": {
                "type": "array",
                "items": WALLET_TRANSACTION,
                "description": "A page of the wallet's transactions, newest first.",
            },
        }
    ),
)
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
    get=extend_schema(
        operation_id="merchant_wallet",
        summary="The merchant's wallet: balances and transactions (endpoint 9)",
        description="Balances are derived from the ledger at the moment of asking; "
        "`total` counts the wallet's transactions (paged with `limit`/`offset`).",
        parameters=[MERCHANT_ID, *PAGINATION],
        responses={
            200: ok_envelope(
                WALLET,
                total={
                    "type": "integer",
                    "minimum": 0,
                    "description": "The wallet's transactions in all pages.",
                },
            )
        },
    )
)(wallet.WalletApi)

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
)(wallet.PayoutAccountApi)

# --- inbound processor events (endpoint 24) ---

PAYSTACK_EVENT = component(
    "ProcessorPaystackEvent",
    obj(
        {
            "event": string(
                "`charge.success`, `transfer.success`, `transfer.failed`, "
                "`transfer.reversed` or `refund.processed`; other events are "
                "stored and ignored."
            ),
            "data": {
                "type": "object",
                "description": "The processor's payload; its `reference` is "
                "re-verified with the processor before any money moves.",
                "additionalProperties": True,
            },
        }
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="processor_paystack_event",
        summary="Processor charge, transfer and refund events (endpoint 24, internal)",
        description="Called by the payment processor, never by merchants. The "
        "signature is verified first (401 `invalid_signature`; a refused body is not "
        "kept), then the request is stored; a signed body that is not an event (not "
        "JSON, nested too deeply, not `{event, data}`) is 400, a good one is "
        "answered 200 at once and the event is handled after the reply, once per "
        "event and reference.",
        auth=PROCESSOR_SIGNATURE,
        request={"application/json": PAYSTACK_EVENT},
        responses={200: ok_envelope(message=string(enum=["accepted"]))},
    )
)(inbound.PaystackWebhookApi)
