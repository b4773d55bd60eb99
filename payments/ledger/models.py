"""The double-entry ledger (DESIGN section 8).

Every money movement is one LedgerTransaction whose lines sum to zero. Signs: a
line's amount is positive for a debit and negative for a credit. `processor_clearing`
is an asset (money held at the processor: debit balance); a merchant wallet,
`platform_fees`, `customer_refunds`, `refunds_in_transit` and `disputes_held`
are what the service owes or earned (credit balances, so their balance is the
negated sum of their lines). A wallet may go below zero when money it had paid
out is refunded or disputed. Rows are append-only: a correction is a new transaction.
"""

from django.db import models
from django.db.models import F

from config.api.ids import new_public_id
from config.models import AppendOnly, amount_positive

from ..customers.models import Customer

PROCESSOR_CLEARING = "processor_clearing"
PLATFORM_FEES = "platform_fees"
PAYOUTS_IN_TRANSIT = "payouts_in_transit"
CUSTOMER_REFUNDS = "customer_refunds"
# Plan refunds asked of the processor and not yet settled (DESIGN section 14).
REFUNDS_IN_TRANSIT = "refunds_in_transit"
# Money a dispute (chargeback) holds out of the merchant's wallet until it is
# resolved (DESIGN section 19).
DISPUTES_HELD = "disputes_held"
WALLET_PREFIX = "merchant_wallet:"
# The platform's own accounts, named as the live side names them.
PLATFORM_ACCOUNTS = (
    PROCESSOR_CLEARING,
    PLATFORM_FEES,
    PAYOUTS_IN_TRANSIT,
    CUSTOMER_REFUNDS,
    REFUNDS_IN_TRANSIT,
    DISPUTES_HELD,
)
# What a platform account of the test side is named by: `test:platform_fees`.
TEST_PREFIX = "test:"


def side_account(account: str, livemode: bool) -> str:
    """The name of platform account `account` (named as on the live side) on
    one side: itself on the live side, `test:<account>` on the test side. A
    wallet's name is already its side's (its merchant row's) and is left as
    it is."""
    if livemode or account not in PLATFORM_ACCOUNTS:
        return account
    return f"{TEST_PREFIX}{account}"


def side_accounts(livemode: bool) -> tuple[str, ...]:
    """The platform accounts of one side."""
    return tuple(side_account(account, livemode) for account in PLATFORM_ACCOUNTS)


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
        # A plan refund's processor refund (a part), against one collection:
        REFUND = "refund"  # wallet and fee given back -> refunds in transit
        REFUND_SETTLED = "refund_settled"  # in transit -> paid out of clearing
        REFUND_RETURNED = "refund_returned"  # failed: back to wallet and fees
        # A dispute (chargeback) against one collection (DESIGN section 19):
        DISPUTE_HELD = "dispute_held"  # wallet -> disputes held
        DISPUTE_RELEASED = "dispute_released"  # won: held -> back to the wallet
        # lost or accepted: held -> out of clearing, the fee on it given back
        DISPUTE_LOST = "dispute_lost"

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
    # The side it is on (module docstring): its merchant row's, or for a
    # movement of no merchant (a verification charge) the side of the payment
    # method it charged. Every row from before test mode is live; the
    # database default also covers the rows bulk loads write (bench).
    livemode = models.BooleanField(default=True, db_default=True)
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
    account = models.CharField(max_length=80)
    amount = models.BigIntegerField()  # debit > 0, credit < 0
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(amount=0), name="ledger_line_not_zero"
            )
        ]
        # An account's lines newest (last posted) first: the wallet's pages
        # are ranges of it. On `-id`, not `id`, so that the primary key cannot
        # give the same order: PostgreSQL would otherwise walk it down through
        # every newer line of other accounts to find an idle merchant's page.
        indexes = [
            models.Index(F("account"), F("id") * -1, name="ledger_line_account_newest")
        ]

    def __str__(self):
        return f"{self.account} {self.amount:+d}"


class LedgerBalance(models.Model):
    """A kept balance (payments/ledger/balances.py, docs/wallet.md): the sum and
    the number of the lines of one account, of one merchant's transactions
    (`merchant_pk`, 0 for none) of one kind, through line `through_line_id`. Written
    only by the recurring checkpoint; a balance is this plus the lines since.
    `check_ledger` proves each equals its lines."""

    account = models.CharField(max_length=80)
    merchant_pk = models.BigIntegerField()
    kind = models.CharField(max_length=32)
    balance = models.BigIntegerField()  # debit-positive, like the lines
    line_count = models.BigIntegerField()
    through_line_id = models.BigIntegerField(db_index=True)
    updated_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["account", "merchant_pk", "kind"],
                name="one_ledger_balance_per_key",
            )
        ]

    def __str__(self):
        return f"{self.account} #{self.merchant_pk} {self.kind} {self.balance:+d}"
