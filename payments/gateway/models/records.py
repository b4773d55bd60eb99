"""What moved through the processor: charges and refunds (append-only).

A row is written once the processor has said what happened, and never deleted;
amounts and references never change (only a refund's status advances as the
processor settles it). The double-entry ledger references these rows.
"""

from django.db import models

from config.models import StateMachine, amount_positive

from ...customers.models import Customer


class ProcessorCharge(StateMachine):
    class Purpose(models.TextChoices):
        CARD_VERIFICATION = "card_verification"
        BANK_VERIFICATION = "bank_verification"

    class Status(models.TextChoices):
        SUCCESS = "success"
        FAILED = "failed"

    # Written with the processor's outcome, which never changes: no moves.
    INITIAL = frozenset({Status.SUCCESS, Status.FAILED})

    VERIFICATION_PURPOSES = (Purpose.CARD_VERIFICATION, Purpose.BANK_VERIFICATION)

    reference = models.CharField(max_length=100, unique=True)
    processor = models.CharField(max_length=16)
    customer = models.ForeignKey(
        Customer, on_delete=models.PROTECT, related_name="processor_charges"
    )
    # By name: payment methods sit above the gateway (payments.methods).
    payment_method = models.ForeignKey(
        "payments.PaymentMethod",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="charges",
    )
    purpose = models.CharField(max_length=32, choices=Purpose.choices)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    status = models.CharField(max_length=16, choices=Status.choices)
    gateway_response = models.CharField(max_length=255, blank=True)
    failure_reason = models.CharField(max_length=32, blank=True)
    processor_id = models.CharField(max_length=64, blank=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [amount_positive("processor_charge_amount_positive")]

    def __str__(self):
        return f"{self.purpose} {self.amount} {self.currency} {self.status}"


class ProcessorRefund(StateMachine):
    """Money given back through the processor; one full refund per charge.

    Its status is the processor's (Paystack's refund statuses), recorded as the
    processor reports it: created in whichever it first said, then moved on
    until `processed` or `failed`, which are final."""

    class Status(models.TextChoices):
        PENDING = "pending"
        PROCESSING = "processing"
        PROCESSED = "processed"
        FAILED = "failed"
        NEEDS_ATTENTION = "needs-attention"

    INITIAL = frozenset(Status)
    TRANSITIONS = {
        Status.PENDING: frozenset(
            {
                Status.PROCESSING,
                Status.PROCESSED,
                Status.FAILED,
                Status.NEEDS_ATTENTION,
            }
        ),
        Status.PROCESSING: frozenset(
            {Status.PENDING, Status.PROCESSED, Status.FAILED, Status.NEEDS_ATTENTION}
        ),
        Status.NEEDS_ATTENTION: frozenset(
            {Status.PENDING, Status.PROCESSING, Status.PROCESSED, Status.FAILED}
        ),
    }

    charge = models.OneToOneField(
        ProcessorCharge, on_delete=models.PROTECT, related_name="refund"
    )
    processor = models.CharField(max_length=16)
    refund_id = models.CharField(max_length=64, blank=True)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    status = models.CharField(max_length=32, choices=Status.choices)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [amount_positive("processor_refund_amount_positive")]

    def __str__(self):
        return f"refund of {self.charge.reference}: {self.amount} ({self.status})"
