"""Payouts: a merchant's available balance sent to their bank account (DESIGN §8).

A payout is created with its ledger posting (wallet -> payouts_in_transit) in one
transaction; its id is the transfer reference at the processor, so asking twice
can never pay twice. Its status moves only through the state machine
(`transition_to`), which refuses illegal moves and stamps the time of each.
"""

import secrets

from django.db import models
from django.db.models import Q

from config.models import AppendOnly, StateMachine, amount_positive

PAYOUT_ID_PREFIX = "po"
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


def new_payout_id() -> str:
    """`po_` + 128 random bits in lowercase base36 (25 characters). Lowercase
    because the id is the Paystack transfer reference, which takes only
    lowercase letters, digits, '-' and '_' (16 to 50 characters)."""
    number = secrets.randbits(128)
    chars = []
    for _ in range(25):
        number, rest = divmod(number, 36)
        chars.append(_BASE36[rest])
    return f"{PAYOUT_ID_PREFIX}_{''.join(chars)}"


class PayoutRecipient(models.Model):
    """The processor's transfer recipient for one bank account, created once and
    reused by every payout to that account."""

    processor = models.CharField(max_length=16)
    bank_code = models.CharField(max_length=10)
    account_number = models.CharField(max_length=10)
    account_name = models.CharField(max_length=200, blank=True)
    recipient_code = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["processor", "bank_code", "account_number"],
                name="payout_recipient_one_per_account",
            )
        ]

    def __str__(self):
        return f"{self.recipient_code} ({self.bank_code} {self.account_number})"


class Payout(StateMachine):
    class Status(models.TextChoices):
        # In transit; the processor has not (knowingly) accepted the transfer.
        PENDING = "pending"
        # The processor accepted the transfer and has not finished it.
        PROCESSING = "processing"
        PAID = "paid"  # settled: the money left the processor for the bank
        FAILED = "failed"  # never paid: the money is back in the wallet
        REVERSED = "reversed"  # paid, then returned by the bank: back in the wallet

    TRANSITIONS = {
        Status.PENDING: frozenset({Status.PROCESSING, Status.PAID, Status.FAILED}),
        Status.PROCESSING: frozenset({Status.PAID, Status.FAILED}),
        Status.PAID: frozenset({Status.REVERSED}),
    }
    OPEN = (Status.PENDING, Status.PROCESSING)
    RETURNED = (Status.FAILED, Status.REVERSED)
    STAMPS = {
        Status.PROCESSING: "processing_at",
        Status.PAID: "paid_at",
        Status.FAILED: "failed_at",
        Status.REVERSED: "reversed_at",
    }

    public_id = models.CharField(max_length=40, unique=True, default=new_payout_id)
    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="payouts"
    )
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    # The account as it was when the payout was made (the merchant may change it).
    bank_code = models.CharField(max_length=10)
    account_number = models.CharField(max_length=10)
    account_name = models.CharField(max_length=200, blank=True)
    processor = models.CharField(max_length=16)
    recipient = models.ForeignKey(
        PayoutRecipient, null=True, blank=True, on_delete=models.PROTECT
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    transfer_code = models.CharField(max_length=64, blank=True)
    failure_reason = models.CharField(max_length=255, blank=True)
    # Set (and committed) before each transfer request: a payout with requests
    # behind it is verified at the processor before it is ever asked again.
    transfer_requests = models.PositiveIntegerField(default=0)
    last_requested_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    processing_at = models.DateTimeField(null=True, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)
    reversed_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [amount_positive("payout_amount_positive")]
        indexes = [
            models.Index(
                fields=["status", "updated_at"],
                condition=Q(status__in=["pending", "processing"]),
                name="payout_open_idx",
            )
        ]

    def __str__(self):
        return f"{self.public_id} {self.amount} {self.currency} {self.status}"

    @property
    def account_last4(self) -> str:
        return self.account_number[-4:]


class PayoutItem(AppendOnly):
    """A wallet line a payout paid out: the payout's settlement report.

    Written with the payout, from the one read that decided its amount (the
    wallet's lines no live payout covers), so the report is exactly what was
    paid even when collections commit while the payout is made. A payout that
    fails or is reversed gives its lines back: the next payout covers them
    again (its items name them too)."""

    payout = models.ForeignKey(Payout, on_delete=models.PROTECT, related_name="items")
    line = models.ForeignKey(
        "payments.LedgerLine", on_delete=models.PROTECT, related_name="payout_items"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["payout", "line"], name="payout_item_one_per_line"
            )
        ]

    def __str__(self):
        return f"{self.payout_id} <- line {self.line_id}"
