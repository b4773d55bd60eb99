"""OpenAPI description of the merchant's wallet (endpoint 9); imported by
payments/schema.py."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.schema import (
    CSV_FORMAT,
    KOBO,
    LIVEMODE,
    PAGINATION,
    TIMESTAMP,
    component,
    obj,
    ok_envelope,
    path_id,
    string,
    with_csv,
)

from . import api

MERCHANT_ID = path_id("merchant_id", "mer", "The merchant's identifier")
WALLET_TYPES = [
    "collection",
    "payout",
    "payout_returned",
    "refund",
    "refund_returned",
    "dispute_held",
    "dispute_released",
    "dispute_lost",
]
WALLET_RESOURCE_TYPES = ["installment", "payment_plan", "payout", "refund", "dispute"]
WALLET_TRANSACTION = component(
    "WalletTransaction",
    obj(
        {
            "id": string("`txn_...`"),
            "livemode": LIVEMODE,
            "type": string(
                "`collection` (a deposit or installment collected), `payout` (left "
                "for your bank), `payout_returned` (a payout came back), `refund` "
                "(a plan refund paid back against one collection), "
                "`refund_returned` (that processor refund failed: the money is "
                "back), `dispute_held` (a collection disputed by the customer's "
                "bank: held while the dispute is open), `dispute_released` (the "
                "dispute won: the money is back), `dispute_lost` (the dispute lost "
                "or accepted: the platform's fee on it given back).",
                enum=WALLET_TYPES,
            ),
            "amount": {
                "type": "integer",
                "description": "Gross movement in kobo, signed from the merchant's "
                "point of view (positive in, negative out).",
            },
            "fee": {
                "type": "integer",
                "description": "Platform fee (2.5%) in kobo; on a `refund`, the "
                "fee given back (negative), so the fee kept on a collection is "
                "always 2.5% of what it has left.",
            },
            "net": {
                "type": "integer",
                "description": "amount - fee: the change to the available balance.",
            },
            "reference": string(
                "The processor reference of the charge or transfer that moved the "
                "money: `inst_..._a1` (`_a2`, `_a1m2`, ... on a retry or another "
                "payment method) for an installment (the `processorReference` of "
                "its `installment.paid` event), `inst_..._a4p` for the partial "
                "debit of its last retry, `inst_..._p1` for one paid early, "
                "`plan_..._d1` (`_d2`, ... after a declined try) for a deposit, "
                "`plan_..._po1` for a payoff, the payout id `po_...` (the "
                "`reference` of `transfer.success`) for a payout, the collection "
                "refunded for a `refund` or `refund_returned`, the collection "
                "disputed for a `dispute_...` line "
                "(/docs/wallet/#collections-and-their-references)."
            ),
            "resource_type": string(
                "What the money was for: `installment`, `payment_plan` (a payment "
                "of the plan as a whole: its deposit, or a payoff), `payout`, "
                "`refund` or `dispute`.",
                enum=WALLET_RESOURCE_TYPES,
            ),
            "resource_id": string(
                "Its id: `inst_...`, `plan_...`, `po_...`, `rf_...` or `dp_...` "
                "(the events' `resourceId`)."
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
            "livemode": LIVEMODE,
            "currency": string(example="NGN"),
            "available_balance": {
                **KOBO,
                "description": "Owed now; paid in the next payout. Below zero "
                "when refunds took back money already paid out: collections "
                "cover it before any payout.",
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
extend_schema_view(
    get=extend_schema(
        operation_id="merchant_wallet",
        summary="Your wallet: balances and transactions",
        description="Balances are derived from the ledger at the moment of asking; "
        "`total` counts the wallet's transactions (paged with `limit`/`offset`, "
        "newest recorded first). Both cost the same however long the history; a "
        "page far from the newest (a large `offset`) takes longer than the first. "
        "`?format=csv` (or `Accept: text/csv`) answers every transaction as CSV "
        "([CSV exports](/docs/api/#csv-exports)).",
        parameters=[MERCHANT_ID, *PAGINATION, CSV_FORMAT],
        responses=with_csv(
            ok_envelope(
                WALLET,
                total={
                    "type": "integer",
                    "minimum": 0,
                    "description": "The wallet's transactions in all pages.",
                },
            ),
            "`id, created_at, type, description, amount, fee, net, reference, "
            "resource_type, resource_id, livemode` (every transaction, as "
            "`transactions` shows them).",
        ),
    )
)(api.WalletApi)
