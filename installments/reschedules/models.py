"""The history of a plan's schedule changes: one append-only row per move."""

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from config.models import AppendOnly


class Reschedule(AppendOnly):
    """One installment moved from one due date to a later one, by the plan's
    customer (counted against their merchant's allowance) or its merchant."""

    class By(models.TextChoices):
        CUSTOMER = "customer"
        MERCHANT = "merchant"

    plan = models.ForeignKey(
        "installments.PaymentPlan", on_delete=models.PROTECT, related_name="reschedules"
    )
    installment = models.ForeignKey(
        "installments.Installment",
        on_delete=models.PROTECT,
        related_name="reschedules",
    )
    from_date = models.DateField()
    to_date = models.DateField()
    by = models.CharField(max_length=8, choices=By.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(to_date__gt=F("from_date")), name="reschedule_later"
            )
        ]
        indexes = [models.Index(fields=["plan", "by"], name="reschedule_plan_by")]

    def __str__(self):
        return f"{self.installment_id}: {self.from_date} -> {self.to_date} by {self.by}"
