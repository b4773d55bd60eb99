"""Reads of the ledger: account balances and a merchant's wallet."""

from dataclasses import dataclass

from django.db.models import Q, QuerySet, Sum

from .models import (
    PAYOUTS_IN_TRANSIT,
    PROCESSOR_CLEARING,
    LedgerLine,
    LedgerTransaction,
    wallet_account,
)


def account_balance(account: str) -> int:
    """Debit-positive sum of an account's lines (credit balances come out negative)."""
    return (
        LedgerLine.objects.filter(account=account).aggregate(total=Sum("amount"))[
            "total"
        ]
        or 0
    )


def wallet_available_balance(merchant) -> int:
    """What the service owes the merchant now: the wallet's credit balance."""
    return -account_balance(wallet_account(merchant.public_id))


@dataclass(frozen=True)
class WalletBalances:
    """A merchant's wallet, derived from the ledger (kobo)."""

    available_balance: int  # owed to the merchant now
    pending_payout: int  # in payouts that are on their way to the bank
    total_paid_out: int  # paid to the bank, less anything reversed after


_PAYOUT_OUTCOMES = (
    LedgerTransaction.Kind.PAYOUT_SETTLED,
    LedgerTransaction.Kind.PAYOUT_RETURNED,
)


def wallet_balances(merchant) -> WalletBalances:
    """One aggregate over the merchant's ledger lines. `payouts_in_transit` and
    `processor_clearing` are shared accounts: the merchant's share is the lines
    of the merchant's own transactions."""
    totals = LedgerLine.objects.filter(
        Q(account=wallet_account(merchant.public_id))
        | Q(transaction__merchant=merchant)
    ).aggregate(
        wallet=Sum("amount", filter=Q(account=wallet_account(merchant.public_id))),
        in_transit=Sum(
            "amount",
            filter=Q(account=PAYOUTS_IN_TRANSIT, transaction__merchant=merchant),
        ),
        paid_out=Sum(
            "amount",
            filter=Q(
                account=PROCESSOR_CLEARING,
                transaction__merchant=merchant,
                transaction__kind__in=_PAYOUT_OUTCOMES,
            ),
        ),
    )
    return WalletBalances(
        available_balance=-(totals["wallet"] or 0),
        pending_payout=-(totals["in_transit"] or 0),
        total_paid_out=-(totals["paid_out"] or 0),
    )


def wallet_transactions(merchant) -> QuerySet[LedgerTransaction]:
    """The ledger transactions that change the merchant's available balance,
    newest first, each annotated with `wallet_change` (its effect on it)."""
    return (
        LedgerTransaction.objects.filter(
            lines__account=wallet_account(merchant.public_id)
        )
        .annotate(wallet_change=-Sum("lines__amount"))
        .order_by("-created_at", "-id")
    )
