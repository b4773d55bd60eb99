"""Deposit attempts: each try at charging a plan's deposit (DESIGN section 7),
claimed before the processor is called and settled once (the claim, call and
settle of checkout/services/completion.py over services.py here)."""

from django.db import models
from django.db.models import Q
from django.utils import timezone

from config.models import StateMachine, amount_positive


class DepositAttempt(StateMachine):
    """One try at charging a plan's deposit, with its own processor reference
    `<plan id>_d<number>`; a declined reference is never charged again.

    Written (`processing`) and committed before the processor is called, so a
    crash leaves a row that is settled later by verifying the reference. The
    database allows one attempt in flight and one success per plan. It moves
    once (processing -> outcome), stamped in `settled_at`: no separate history.
    """

    class Status(models.TextChoices):
        PROCESSING = "processing"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    TRANSITIONS = {
        Status.PROCESSING: frozenset({Status.SUCCEEDED, Status.FAILED}),
    }
    STAMPS = {Status.SUCCEEDED: "settled_at", Status.FAILED: "settled_at"}

    plan = models.ForeignKey(
        "installments.PaymentPlan",
        on_delete=models.PROTECT,
        related_name="deposit_attempts",
    )
    number = models.PositiveSmallIntegerField()
    reference = models.CharField(max_length=100, unique=True)
    customer = models.ForeignKey(
        "payments.Customer", on_delete=models.PROTECT, related_name="+"
    )
    payment_method = models.ForeignKey(
        "payments.PaymentMethod", on_delete=models.PROTECT, related_name="+"
    )
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PROCESSING
    )
    status_changed_at = models.DateTimeField(default=timezone.now)
    failure_reason = models.CharField(max_length=32, blank=True)
    gateway_response = models.CharField(max_length=255, blank=True)
    processor_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["plan_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["plan", "number"], name="deposit_attempt_number_unique"
            ),
            models.UniqueConstraint(
                fields=["plan"],
                condition=Q(status="processing"),
                name="deposit_attempt_one_in_flight",
            ),
            models.UniqueConstraint(
                fields=["plan"],
                condition=Q(status="succeeded"),
                name="deposit_attempt_one_success",
            ),
            amount_positive("deposit_attempt_amount_positive"),
        ]

    def __str__(self):
        return f"{self.reference} {self.amount} ({self.status})"
