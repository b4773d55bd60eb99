"""Posting to the double-entry ledger (DESIGN section 8).

Callers post inside their own transaction (the one that changes the installment,
session or payout the money belongs to), so money and state commit together. One
transaction per (kind, reference) is a database rule: a second posting for the same
movement fails instead of counting money twice.
"""

from django.db import transaction

from ..fees import platform_fee
from ..models import LedgerLine, LedgerTransaction
from ..models.ledger import (
    CUSTOMER_REFUNDS,
    PLATFORM_FEES,
    PROCESSOR_CLEARING,
    wallet_account,
)


def ledger_post(
    *,
    kind: str,
    reference: str,
    lines: list[tuple[str, int]],
    amount: int,
    fee: int = 0,
    net: int = 0,
    merchant=None,
    customer=None,
    currency: str = "NGN",
    description: str = "",
) -> LedgerTransaction:
    """Write one balanced transaction. Refuses unbalanced or empty postings."""
    lines = [(account, value) for account, value in lines if value != 0]
    if not lines or sum(value for _, value in lines) != 0:
        raise ValueError(f"ledger postings must balance: {lines}")
    with transaction.atomic(savepoint=False):
        txn = LedgerTransaction.objects.create(
            kind=kind,
            reference=reference,
            merchant=merchant,
            customer=customer,
            currency=currency,
            amount=amount,
            fee=fee,
            net=net,
            description=description,
        )
        LedgerLine.objects.bulk_create(
            LedgerLine(transaction=txn, account=account, amount=value)
            for account, value in lines
        )
    return txn


def collection_post(
    *,
    merchant,
    customer,
    amount: int,
    reference: str,
    currency: str = "NGN",
    description: str = "",
) -> LedgerTransaction:
    """A deposit or installment collected: the processor holds `amount`; the
    merchant's wallet is owed 97.5% and the platform keeps the 2.5% fee."""
    fee = platform_fee(amount)
    net = amount - fee
    return ledger_post(
        kind=LedgerTransaction.Kind.COLLECTION,
        reference=reference,
        merchant=merchant,
        customer=customer,
        currency=currency,
        amount=amount,
        fee=fee,
        net=net,
        description=description,
        lines=[
            (PROCESSOR_CLEARING, amount),
            (PLATFORM_FEES, -fee),
            (wallet_account(merchant.public_id), -net),
        ],
    )


def verification_charge_post(
    *, customer, amount: int, reference: str, currency: str = "NGN"
) -> LedgerTransaction:
    """The card/mandate verification charge: held for the customer until refunded."""
    return ledger_post(
        kind=LedgerTransaction.Kind.VERIFICATION_CHARGE,
        reference=reference,
        customer=customer,
        currency=currency,
        amount=amount,
        description="Verification charge",
        lines=[(PROCESSOR_CLEARING, amount), (CUSTOMER_REFUNDS, -amount)],
    )


def verification_refund_post(
    *, customer, amount: int, reference: str, currency: str = "NGN"
) -> LedgerTransaction:
    return ledger_post(
        kind=LedgerTransaction.Kind.VERIFICATION_REFUND,
        reference=reference,
        customer=customer,
        currency=currency,
        amount=amount,
        description="Verification charge refunded",
        lines=[(CUSTOMER_REFUNDS, amount), (PROCESSOR_CLEARING, -amount)],
    )
