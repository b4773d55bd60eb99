"""The CSV columns of payouts and of a payout's settlement report
(config.exports; docs/wallet.md, "Exports")."""

from config.exports import CsvExport, output_columns

PAYOUTS = CsvExport(
    "payouts",
    output_columns(
        "id",
        "created_at",
        "status",
        "amount",
        "currency",
        "bank_code",
        "account_last4",
        "account_name",
        "lines",
        "paid_at",
        "failed_at",
        "reversed_at",
        "failure_reason",
        "livemode",
        money=("amount",),
    ),
)

SETTLEMENT = CsvExport(
    "settlement",
    output_columns(
        "payout_id",
        "transaction_id",
        "created_at",
        "type",
        "order_reference",
        "payment_plan_id",
        "installment_id",
        "refund_id",
        "processor_reference",
        "gross",
        "fee",
        "net",
        "currency",
        "description",
        "livemode",
        money=("gross", "fee", "net"),
    ),
)
