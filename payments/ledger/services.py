"""Posting to the double-entry ledger (DESIGN section 8).

Callers post inside their own transaction (the one that changes the installment,
session or payout the money belongs to), so money and state commit together. One
transaction per (kind, reference) is a database rule: a second posting for the same
movement fails instead of counting money twice.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from config.db.rows import bulk_insert

from .fees import fee_given_back, platform_fee
from .models import (
    CUSTOMER_REFUNDS,
    PAYOUTS_IN_TRANSIT,
    PLATFORM_FEES,
    PROCESSOR_CLEARING,
    REFUNDS_IN_TRANSIT,
    LedgerLine,
    LedgerTransaction,
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
    processor_reference: str = "",
    resource_type: str = "",
    resource_id: str = "",
) -> LedgerTransaction:
    """Write one balanced transaction. Refuses unbalanced or empty postings.
    A movement of a merchant's wallet names the processor reference that moved
    the money and the resource it belongs to (what the wallet shows)."""
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
            processor_reference=processor_reference,
            resource_type=resource_type,
            resource_id=resource_id,
        )
        LedgerLine.objects.bulk_create(
            LedgerLine(transaction=txn, account=account, amount=value)
            for account, value in lines
        )
    return txn


@dataclass(frozen=True)
class Collection:
    """One collected payment for `collections_post` (ids, not model instances,
    so a batch needs no row loaded)."""

    merchant_pk: int
    merchant_public_id: str
    customer_pk: int
    amount: int
    reference: str
    processor_reference: str
    resource_type: str
    resource_id: str
    currency: str = "NGN"
    description: str = ""


def collections_post(collections: Sequence[Collection]) -> list[LedgerTransaction]:
    """Deposits and installments collected: for each, the processor holds
    `amount`, the merchant's wallet is owed 97.5% and the platform keeps the
    2.5% fee. The whole batch is two bulk inserts; one transaction per reference
    is a database rule (a duplicate fails the whole statement). The one posting
    of a collection: `collection_post` is one item of it."""
    transactions = []
    lines = []
    for item in collections:
        fee = platform_fee(item.amount)
        net = item.amount - fee
        txn = LedgerTransaction(
            kind=LedgerTransaction.Kind.COLLECTION,
            reference=item.reference,
            merchant_id=item.merchant_pk,
            customer_id=item.customer_pk,
            currency=item.currency,
            amount=item.amount,
            fee=fee,
            net=net,
            description=item.description,
            processor_reference=item.processor_reference,
            resource_type=item.resource_type,
            resource_id=item.resource_id,
        )
        transactions.append(txn)
        for account, value in (
            (PROCESSOR_CLEARING, item.amount),
            (PLATFORM_FEES, -fee),
            (wallet_account(item.merchant_public_id), -net),
        ):
            if value:
                lines.append((txn, account, value))
    if not transactions:
        return []
    with transaction.atomic(savepoint=False):
        bulk_insert(transactions)
        bulk_insert(
            [
                LedgerLine(transaction=txn, account=account, amount=value)
                for txn, account, value in lines
            ]
        )
    return transactions


def collection_post(
    *,
    merchant,
    customer,
    amount: int,
    reference: str,
    processor_reference: str,
    resource_type: str,
    resource_id: str,
    currency: str = "NGN",
    description: str = "",
) -> LedgerTransaction:
    """One deposit or installment collected (`collections_post` of one item).
    `processor_reference` is the charge that collected it, `resource_type` and
    `resource_id` what it was for (`installment`, or `payment_plan` for a
    deposit)."""
    (txn,) = collections_post(
        [
            Collection(
                merchant_pk=merchant.pk,
                merchant_public_id=merchant.public_id,
                customer_pk=customer.pk,
                amount=amount,
                reference=reference,
                processor_reference=processor_reference,
                resource_type=resource_type,
                resource_id=resource_id,
                currency=currency,
                description=description,
            )
        ]
    )
    return txn


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


def _payout_resource(payout) -> dict:
    """A payout's transfer reference is the payout's own id."""
    return {
        "processor_reference": payout.public_id,
        "resource_type": "payout",
        "resource_id": payout.public_id,
    }


def payout_post(*, payout) -> LedgerTransaction:
    """The merchant's available balance leaves the wallet and is in transit."""
    return ledger_post(
        kind=LedgerTransaction.Kind.PAYOUT,
        reference=payout.public_id,
        merchant=payout.merchant,
        currency=payout.currency,
        amount=payout.amount,
        net=-payout.amount,
        description=f"Payout to {payout.bank_code} ••••{payout.account_last4}",
        **_payout_resource(payout),
        lines=[
            (wallet_account(payout.merchant.public_id), payout.amount),
            (PAYOUTS_IN_TRANSIT, -payout.amount),
        ],
    )


def payout_settled_post(*, payout) -> LedgerTransaction:
    """The processor paid the transfer: the money left the processor's balance."""
    return ledger_post(
        kind=LedgerTransaction.Kind.PAYOUT_SETTLED,
        reference=payout.public_id,
        merchant=payout.merchant,
        currency=payout.currency,
        amount=payout.amount,
        description=f"Payout paid to {payout.bank_code} ••••{payout.account_last4}",
        **_payout_resource(payout),
        lines=[
            (PAYOUTS_IN_TRANSIT, payout.amount),
            (PROCESSOR_CLEARING, -payout.amount),
        ],
    )


def payout_returned_post(*, payout, after_settlement: bool) -> LedgerTransaction:
    """A transfer failed (still in transit) or was reversed after it was paid
    (back into the processor's balance): the wallet gets the money back."""
    source = PROCESSOR_CLEARING if after_settlement else PAYOUTS_IN_TRANSIT
    what = "reversed" if after_settlement else "failed"
    return ledger_post(
        kind=LedgerTransaction.Kind.PAYOUT_RETURNED,
        reference=payout.public_id,
        merchant=payout.merchant,
        currency=payout.currency,
        amount=payout.amount,
        net=payout.amount,
        description=f"Payout {what}: returned to the wallet",
        **_payout_resource(payout),
        lines=[
            (source, payout.amount),
            (wallet_account(payout.merchant.public_id), -payout.amount),
        ],
    )


@dataclass(frozen=True)
class RefundPosting:
    """One processor refund of a plan refund (a part), for the postings below.

    `reference` is the part's own (`rf_..._1`), `collection_reference` the
    processor reference of the collection it refunds (what the wallet shows as
    the reference, and what the checks group by), `refund_id` the plan refund
    (`rf_...`)."""

    merchant: object
    customer: object
    reference: str
    collection_reference: str
    refund_id: str
    amount: int
    currency: str = "NGN"
    description: str = ""

    def header(self) -> dict:
        return {
            "reference": self.reference,
            "merchant": self.merchant,
            "customer": self.customer,
            "currency": self.currency,
            "amount": self.amount,
            "processor_reference": self.collection_reference,
            "resource_type": "refund",
            "resource_id": self.refund_id,
        }


def refund_post(*, part: RefundPosting, remaining: int) -> LedgerTransaction:
    """A processor refund asked for against a collection that has `remaining`
    left: the fee on what it takes (`fee_given_back`) comes out of
    `platform_fees`, the rest out of the merchant's wallet (which may go below
    zero), both into `refunds_in_transit`. `fee` and `net` are negative: the
    merchant's wallet and fee change, as the wallet shows them."""
    fee_back = fee_given_back(remaining=remaining, refunded=part.amount)
    wallet_back = part.amount - fee_back
    return ledger_post(
        kind=LedgerTransaction.Kind.REFUND,
        fee=-fee_back,
        net=-wallet_back,
        description=part.description or "Refund requested",
        lines=[
            (wallet_account(part.merchant.public_id), wallet_back),
            (PLATFORM_FEES, fee_back),
            (REFUNDS_IN_TRANSIT, -part.amount),
        ],
        **part.header(),
    )


def refund_settled_post(*, part: RefundPosting) -> LedgerTransaction:
    """The processor paid the refund back: the money left its balance."""
    return ledger_post(
        kind=LedgerTransaction.Kind.REFUND_SETTLED,
        description=part.description or "Refund paid to the customer",
        lines=[(REFUNDS_IN_TRANSIT, part.amount), (PROCESSOR_CLEARING, -part.amount)],
        **part.header(),
    )


def refund_returned_post(*, part: RefundPosting, remaining: int) -> LedgerTransaction:
    """The processor refund failed: its money goes back, split by the fee rule on
    what the collection has left now (`remaining`, still counting this part),
    not by replaying the split of the request."""
    fee_kept = fee_given_back(remaining=remaining + part.amount, refunded=part.amount)
    wallet_in = part.amount - fee_kept
    return ledger_post(
        kind=LedgerTransaction.Kind.REFUND_RETURNED,
        fee=fee_kept,
        net=wallet_in,
        description=part.description or "Refund failed: returned to the wallet",
        lines=[
            (REFUNDS_IN_TRANSIT, part.amount),
            (PLATFORM_FEES, -fee_kept),
            (wallet_account(part.merchant.public_id), -wallet_in),
        ],
        **part.header(),
    )
