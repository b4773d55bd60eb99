"""The double-entry ledger (DESIGN section 8).

Every money movement is one LedgerTransaction whose lines sum to zero. Signs: a
line's amount is positive for a debit and negative for a credit. `processor_clearing`
is an asset (money held at the processor: debit balance); a merchant wallet,
`platform_fees` and `customer_refunds` are what the service owes or earned (credit
balances, so their balance is the negated sum of their lines). Rows are append-only:
a correction is a new transaction.
"""

from django.db import models

from config.api.ids import new_public_id
from config.models import AppendOnly, amount_positive

from ..customers.models import Customer

PROCESSOR_CLEARING = "processor_clearing"
PLATFORM_FEES = "platform_fees"
PAYOUTS_IN_TRANSIT = "payouts_in_transit"
CUSTOMER_REFUNDS = "customer_refunds"
WALLET_PREFIX = "merchant_wallet:"


def wallet_account(merchant_public_id: str) -> str:
    return f"{WALLET_PREFIX}{merchant_public_id}"


def new_transaction_id() -> str:
    return new_public_id("txn")


class LedgerTransaction(AppendOnly):
    class Kind(models.TextChoices):
        COLLECTION = "collection"  # a deposit or an installment collected
        VERIFICATION_CHARGE = "verification_charge"
        VERIFICATION_REFUND = "verification_refund"
        PAYOUT = "payout"  # wallet -> payouts in transit
        PAYOUT_SETTLED = "payout_settled"  # in transit -> paid out of clearing
        PAYOUT_RETURNED = "payout_returned"  # in transit -> back to the wallet

    public_id = models.CharField(max_length=40, unique=True, default=new_transaction_id)
    kind = models.CharField(max_length=32, choices=Kind.choices)
    # What this movement is for (an installment id, a payout id, a charge
    # reference): one transaction per (kind, reference), enforced below.
    reference = models.CharField(max_length=120)
    # What the merchant's wallet shows of it (docs/wallet.md): the processor
    # reference of the charge or transfer that moved the money, and the
    # resource it belongs to (the installment, the plan of a deposit, the
    # payout). Blank on movements that are no wallet's.
    processor_reference = models.CharField(max_length=120, blank=True)
    resource_type = models.CharField(max_length=32, blank=True)
    resource_id = models.CharField(max_length=40, blank=True)
    merchant = models.ForeignKey(
        "merchants.Merchant",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ledger_transactions",
    )
    customer = models.ForeignKey(
        Customer,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="ledger_transactions",
    )
    currency = models.CharField(max_length=3, default="NGN")
    # The gross amount moved, the platform fee kept and what the merchant nets.
    amount = models.BigIntegerField()
    fee = models.BigIntegerField(default=0)
    net = models.BigIntegerField(default=0)
    description = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "reference"],
                name="one_ledger_transaction_per_reference",
            ),
            amount_positive("ledger_amount_positive"),
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.public_id} {self.kind} {self.amount} {self.reference}"


class LedgerLine(AppendOnly):
    transaction = models.ForeignKey(
        LedgerTransaction, on_delete=models.PROTECT, related_name="lines"
    )
    account = models.CharField(max_length=80, db_index=True)
    amount = models.BigIntegerField()  # debit > 0, credit < 0
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(amount=0), name="ledger_line_not_zero"
            )
        ]

    def __str__(self):
        return f"{self.account} {self.amount:+d}"
