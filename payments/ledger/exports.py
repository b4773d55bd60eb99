"""The CSV columns of the wallet's lists (config.exports; docs/wallet.md,
"Exports"): its transactions, as endpoint 9 shows them, and its refunds."""

from config.exports import Column, CsvExport, output_columns

WALLET_TRANSACTIONS = CsvExport(
    "wallet_transactions",
    output_columns(
        "id",
        "created_at",
        "type",
        "description",
        "amount",
        "fee",
        "net",
        "reference",
        "resource_type",
        "resource_id",
        "livemode",
        money=("amount", "fee", "net"),
    ),
)

# The dashboard's refunds list: each processor refund asked for, paid or failed.
REFUNDS = CsvExport(
    "refunds",
    (
        Column("id", lambda txn: txn.public_id),
        Column("created_at", lambda txn: txn.created_at),
        Column("type", lambda txn: txn.kind),
        Column("refund_id", lambda txn: txn.resource_id),
        Column("refund_reference", lambda txn: txn.reference),
        Column("collection_reference", lambda txn: txn.processor_reference),
        Column("amount", lambda txn: txn.amount, money=True),
        Column("fee", lambda txn: txn.fee, money=True),
        Column("net", lambda txn: txn.net, money=True),
        Column("currency", lambda txn: txn.currency),
        Column("description", lambda txn: txn.description),
    ),
)
