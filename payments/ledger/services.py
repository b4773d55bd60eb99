"""Posting to the double-entry ledger (DESIGN section 8).

Callers post inside their own transaction (the one that changes the installment,
session or payout the money belongs to), so money and state commit together. One
transaction per (kind, reference) is a database rule: a second posting for the same
movement fails instead of counting money twice.

This is the one place lines are built, so it is the one place a test
transaction's platform lines are renamed to its side's accounts
(`side_account`: `test:processor_clearing`, ...): the postings below name the
live accounts, and `ledger_post` and `collections_post` put each on its side.
"""

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from config.db.rows import bulk_insert

from .fees import fee_given_back, platform_fee
from .models import (
    CUSTOMER_REFUNDS,
    DISPUTES_HELD,
    PAYOUTS_IN_TRANSIT,
    PLATFORM_FEES,
    PROCESSOR_CLEARING,
    REFUNDS_IN_TRANSIT,
    LedgerLine,
    LedgerTransaction,
    side_account,
    wallet_account,
)


def _side_of(merchant, livemode: bool | None) -> bool:
    """A transaction's side: its merchant row's; `livemode` is for a movement of
    no merchant (a verification charge), and must agree with the merchant's
    when both are given."""
    if merchant is None:
        return True if livemode is None else livemode
    if livemode is not None and livemode != merchant.livemode:
        raise ValueError(
            f"a posting for merchant {merchant.public_id} is on its side "
            f"(livemode={merchant.livemode}), not livemode={livemode}"
        )
    return merchant.livemode


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
    livemode: bool | None = None,
) -> LedgerTransaction:
    """Write one balanced transaction. Refuses unbalanced or empty postings.
    A movement of a merchant's wallet names the processor reference that moved
    the money and the resource it belongs to (what the wallet shows). `lines`
    name the live side's platform accounts: on the test side (the merchant's,
    or `livemode` False for a movement of no merchant) they post to its own."""
    livemode = _side_of(merchant, livemode)
    # One line per account (the wallet counts a transaction by its line).
    merged: dict[str, int] = {}
    for account, value in lines:
        account = side_account(account, livemode)
        merged[account] = merged.get(account, 0) + value
    lines = [(account, value) for account, value in merged.items() if value != 0]
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
            livemode=livemode,
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
    # The merchant row's side (`Merchant.livemode`): asked of every caller, so
    # that no batch can post a test collection to the live accounts.
    livemode: bool
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
    2.5% fee (a partial collection, DESIGN section 15, is one too: for the part
    collected, with the fee on that part, under its own reference). The whole
    batch is two bulk inserts; one transaction per reference
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
            livemode=item.livemode,
        )
        transactions.append(txn)
        for account, value in (
            (side_account(PROCESSOR_CLEARING, item.livemode), item.amount),
            (side_account(PLATFORM_FEES, item.livemode), -fee),
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
                LedgerLine(transaction_id=txn.pk, account=account, amount=value)
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
                livemode=merchant.livemode,
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


def _move(
    *, kind: str, amount: int, into: str, out_of: str, **fields
) -> LedgerTransaction:
    """`amount` moves from `out_of` into `into` (a debit of `into`, a credit of
    `out_of`): every posting below is one such move."""
    return ledger_post(
        kind=kind, amount=amount, lines=[(into, amount), (out_of, -amount)], **fields
    )


# A verification charge is held for the customer until it is refunded: the
# charge and its refund are the one movement, each way.
_VERIFICATION = {
    LedgerTransaction.Kind.VERIFICATION_CHARGE: (
        "Verification charge",
        PROCESSOR_CLEARING,
        CUSTOMER_REFUNDS,
    ),
    LedgerTransaction.Kind.VERIFICATION_REFUND: (
        "Verification charge refunded",
        CUSTOMER_REFUNDS,
        PROCESSOR_CLEARING,
    ),
}


def _verification_post(kind, customer, amount, reference, currency, livemode):
    description, into, out_of = _VERIFICATION[kind]
    return _move(
        kind=kind,
        amount=amount,
        into=into,
        out_of=out_of,
        reference=reference,
        customer=customer,
        currency=currency,
        description=description,
        livemode=livemode,
    )


def verification_charge_post(
    *,
    customer,
    amount: int,
    reference: str,
    currency: str = "NGN",
    livemode: bool = True,
) -> LedgerTransaction:
    """The card/mandate verification charge: held for the customer until
    refunded. It names no merchant, so its side is given: the side of the
    payment method it verifies (`PaymentMethod.livemode`; a charge of a test
    checkout is a test one)."""
    kind = LedgerTransaction.Kind.VERIFICATION_CHARGE
    return _verification_post(kind, customer, amount, reference, currency, livemode)


def verification_refund_post(
    *,
    customer,
    amount: int,
    reference: str,
    currency: str = "NGN",
    livemode: bool | None = None,
) -> LedgerTransaction:
    """The verification charge given back to the customer, on the side its
    charge was posted on (`livemode` None: read from the charge's posting,
    under the same reference; live when there is none)."""
    kind = LedgerTransaction.Kind.VERIFICATION_REFUND
    if livemode is None:
        livemode = (
            LedgerTransaction.objects.filter(
                kind=LedgerTransaction.Kind.VERIFICATION_CHARGE, reference=reference
            )
            .values_list("livemode", flat=True)
            .first()
        )
        livemode = True if livemode is None else livemode
    return _verification_post(kind, customer, amount, reference, currency, livemode)


def _payout(payout) -> dict:
    """What every posting of a payout names: the payout's own id is both its
    reference and its transfer's reference."""
    return {
        "reference": payout.public_id,
        "merchant": payout.merchant,
        "currency": payout.currency,
        "amount": payout.amount,
        "processor_reference": payout.public_id,
        "resource_type": "payout",
        "resource_id": payout.public_id,
    }


def payout_post(*, payout) -> LedgerTransaction:
    """The merchant's available balance leaves the wallet and is in transit."""
    return _move(
        kind=LedgerTransaction.Kind.PAYOUT,
        **_payout(payout),
        net=-payout.amount,
        description=f"Payout to {payout.bank_code} ••••{payout.account_last4}",
        into=wallet_account(payout.merchant.public_id),
        out_of=PAYOUTS_IN_TRANSIT,
    )


def payout_settled_post(*, payout) -> LedgerTransaction:
    """The processor paid the transfer: the money left the processor's balance."""
    return _move(
        kind=LedgerTransaction.Kind.PAYOUT_SETTLED,
        **_payout(payout),
        description=f"Payout paid to {payout.bank_code} ••••{payout.account_last4}",
        into=PAYOUTS_IN_TRANSIT,
        out_of=PROCESSOR_CLEARING,
    )


def payout_returned_post(*, payout, after_settlement: bool) -> LedgerTransaction:
    """A transfer failed (still in transit) or was reversed after it was paid
    (back into the processor's balance): the wallet gets the money back."""
    what = "reversed" if after_settlement else "failed"
    return _move(
        kind=LedgerTransaction.Kind.PAYOUT_RETURNED,
        **_payout(payout),
        net=payout.amount,
        description=f"Payout {what}: returned to the wallet",
        into=PROCESSOR_CLEARING if after_settlement else PAYOUTS_IN_TRANSIT,
        out_of=wallet_account(payout.merchant.public_id),
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


@dataclass(frozen=True)
class DisputePosting:
    """One dispute (chargeback) of a collection, for the postings below
    (DESIGN section 19): `reference` is the dispute's id (`dp_...`), under
    which each of its three movements is posted at most once,
    `collection_reference` the processor reference of the collection it
    disputes (what the wallet shows and the checks group by), `amount` what it
    holds."""

    merchant: object
    customer: object
    reference: str
    collection_reference: str
    amount: int
    currency: str = "NGN"

    def header(self) -> dict:
        return {
            "reference": self.reference,
            "merchant": self.merchant,
            "customer": self.customer,
            "currency": self.currency,
            "amount": self.amount,
            "processor_reference": self.collection_reference,
            "resource_type": "dispute",
            "resource_id": self.reference,
        }


def dispute_held_post(*, dispute: DisputePosting) -> LedgerTransaction:
    """A dispute opened: its amount leaves the merchant's wallet (which may go
    below zero; payouts wait) and is held until the dispute is resolved."""
    return _move(
        kind=LedgerTransaction.Kind.DISPUTE_HELD,
        net=-dispute.amount,
        description="Disputed by the customer's bank: held",
        into=wallet_account(dispute.merchant.public_id),
        out_of=DISPUTES_HELD,
        **dispute.header(),
    )


def dispute_released_post(*, dispute: DisputePosting) -> LedgerTransaction:
    """A dispute won: the held amount returns to the wallet."""
    return _move(
        kind=LedgerTransaction.Kind.DISPUTE_RELEASED,
        net=dispute.amount,
        description="Dispute won: returned to the wallet",
        into=DISPUTES_HELD,
        out_of=wallet_account(dispute.merchant.public_id),
        **dispute.header(),
    )


def dispute_lost_post(*, dispute: DisputePosting, left: int) -> LedgerTransaction:
    """A dispute lost (or accepted): the held amount leaves the processor's
    balance to the customer's bank, and the platform gives back its fee on it
    by the refunds' rule (`fee_given_back`) on what the collection has left
    counting the held amount (`left` is what it has left without it), so
    that the fee kept on the collection is the fee of what it has left."""
    fee_back = fee_given_back(remaining=left + dispute.amount, refunded=dispute.amount)
    return ledger_post(
        kind=LedgerTransaction.Kind.DISPUTE_LOST,
        fee=-fee_back,
        net=fee_back,
        description="Dispute lost: charged back to the customer",
        lines=[
            (DISPUTES_HELD, dispute.amount),
            (PROCESSOR_CLEARING, -dispute.amount),
            (PLATFORM_FEES, fee_back),
            (wallet_account(dispute.merchant.public_id), -fee_back),
        ],
        **dispute.header(),
    )
