"""A dispute (chargeback) of one collection of a plan (DESIGN section 19)."""

from django.db import models
from django.db.models import Q
from django.utils import timezone

from config.api.ids import new_public_id
from config.models import StateMachine


def new_dispute_id() -> str:
    return new_public_id("dp")


class Dispute(StateMachine):
    """The customer's bank disputes a collection (a deposit, an installment or
    a part of one, an early payment): made from the processor's
    `charge.dispute.create`, one per processor dispute.

    `needs_response` -> `under_review` (the merchant answered with evidence)
    -> `won` | `lost`; `needs_response` -> `accepted` (the merchant gave in:
    lost in money terms), or -> `won` | `lost` when the processor resolved it
    without an answer from here (an unanswered one past `due_at` is lost).

    `amount` is what the processor disputes; `amount_held` what it holds of
    the merchant's wallet: the same, unless refunds had already given part of
    the collection back (a dispute never takes more than the collection has
    left). `resumed_at`: when the merchant resumed the plan after the loss
    (its installment due again)."""

    class Status(models.TextChoices):
        NEEDS_RESPONSE = "needs_response"
        UNDER_REVIEW = "under_review"
        WON = "won"
        LOST = "lost"
        ACCEPTED = "accepted"

    OPEN = (Status.NEEDS_RESPONSE, Status.UNDER_REVIEW)
    # Resolved against the merchant: the money is charged back.
    CHARGED_BACK = (Status.LOST, Status.ACCEPTED)

    TRANSITIONS = {
        Status.NEEDS_RESPONSE: frozenset(
            {Status.UNDER_REVIEW, Status.ACCEPTED, Status.WON, Status.LOST}
        ),
        Status.UNDER_REVIEW: frozenset({Status.WON, Status.LOST}),
    }
    STAMPS = {
        Status.UNDER_REVIEW: "responded_at",
        Status.WON: "resolved_at",
        Status.LOST: "resolved_at",
        Status.ACCEPTED: "resolved_at",
    }

    public_id = models.CharField(max_length=40, unique=True, default=new_dispute_id)
    processor_dispute_id = models.CharField(max_length=64, unique=True)
    plan = models.ForeignKey(
        "installments.PaymentPlan", on_delete=models.PROTECT, related_name="disputes"
    )
    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="+"
    )
    # The installment the collection paid; None for a deposit or a payoff.
    installment = models.ForeignKey(
        "installments.Installment",
        on_delete=models.PROTECT,
        related_name="disputes",
        null=True,
        blank=True,
    )
    collection_reference = models.CharField(max_length=120)
    amount = models.BigIntegerField()
    amount_held = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    # The processor's words (the customer's reason and its category).
    reason = models.CharField(max_length=255, blank=True)
    category = models.CharField(max_length=32, blank=True)
    processor_status = models.CharField(max_length=40, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.NEEDS_RESPONSE
    )
    status_changed_at = models.DateTimeField(default=timezone.now)
    due_at = models.DateTimeField()
    # The merchant's answer as sent: the text fields, the files' names, types,
    # sizes and SHA-256, and the documents attached automatically.
    evidence = models.JSONField(default=dict, blank=True)
    # The processor's reminders so far (`charge.dispute.remind`).
    reminders = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    responded_at = models.DateTimeField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resumed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["due_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gt=0)
                & Q(amount_held__gte=0)
                & Q(amount_held__lte=models.F("amount")),
                name="dispute_amounts_valid",
            ),
        ]
        indexes = [
            models.Index(fields=["merchant", "due_at"], name="dispute_merchant_due"),
            # The lapse job: open disputes past their deadline.
            models.Index(
                fields=["due_at"],
                name="dispute_needs_response_due",
                condition=Q(status="needs_response"),
            ),
        ]

    def __str__(self):
        return f"{self.public_id} {self.collection_reference} ({self.status})"

    @property
    def is_open(self) -> bool:
        return self.status in self.OPEN
