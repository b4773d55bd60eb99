"""HTTP out for the merchant's wallet (endpoint 9)."""

from config.api.formats import iso_utc


def wallet_transaction_output(txn) -> dict:
    """One wallet transaction from the merchant's point of view (docs/wallet.md):
    `net` is the change to the available balance (positive in, negative out),
    `amount` the gross movement with the same sign, and `net = amount - fee`.
    `reference` is the processor reference of the charge or transfer that moved
    the money (as in the events), `resource_type`/`resource_id` what it was for."""
    net = txn.wallet_change
    return {
        "id": txn.public_id,
        "livemode": txn.livemode,
        "type": txn.kind,
        "amount": net + txn.fee,
        "fee": txn.fee,
        "net": net,
        "reference": txn.processor_reference,
        "resource_type": txn.resource_type,
        "resource_id": txn.resource_id,
        "description": txn.description,
        "created_at": iso_utc(txn.created_at),
    }


def wallet_output(*, merchant, balances, transactions) -> dict:
    return {
        # The id the merchant knows, the same on both sides (never the test
        # side row's own, DESIGN section 21).
        "merchant_id": merchant.api_id,
        "livemode": merchant.livemode,
        "currency": "NGN",
        "available_balance": balances.available_balance,
        "pending_payout": balances.pending_payout,
        "total_paid_out": balances.total_paid_out,
        "transactions": [wallet_transaction_output(txn) for txn in transactions],
    }
