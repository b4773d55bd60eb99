"""The append-only status histories of plans and installments: one row per
move `transition_to()` makes (installments/plans/models.py), with the attempt and the
reason of an installment's failures."""

from django.db import models
from django.db.models import Q


class PaymentPlanStatusChange(models.Model):
    """Append-only history of a plan's statuses."""

    plan = models.ForeignKey(
        "installments.PaymentPlan",
        on_delete=models.CASCADE,
        related_name="status_changes",
    )
    from_status = models.CharField(max_length=16)
    to_status = models.CharField(max_length=16)
    changed_at = models.DateTimeField()

    class Meta:
        ordering = ["changed_at", "id"]

    def __str__(self):
        return f"{self.from_status} -> {self.to_status} at {self.changed_at}"


class InstallmentStatusChange(models.Model):
    """Append-only history of an installment's statuses and attempts."""

    installment = models.ForeignKey(
        "installments.Installment",
        on_delete=models.CASCADE,
        related_name="status_changes",
    )
    from_status = models.CharField(max_length=16)
    to_status = models.CharField(max_length=16)
    attempt = models.PositiveSmallIntegerField(default=0)
    # Why an attempt failed (`payment.failed` reason), on moves to `failed`.
    reason = models.CharField(max_length=32, blank=True)
    # The early payment that made this move (its claim, its success, or putting
    # the installment back after its decline, which is no failed attempt).
    early_payment = models.ForeignKey(
        "installments.EarlyPayment",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    changed_at = models.DateTimeField()

    class Meta:
        ordering = ["changed_at", "id"]
        indexes = [
            # The score counts failed attempts of the last 180 days.
            models.Index(
                fields=["installment", "changed_at"],
                name="installment_failures",
                condition=Q(to_status="failed"),
            )
        ]

    def __str__(self):
        return f"{self.from_status} -> {self.to_status} at {self.changed_at}"
