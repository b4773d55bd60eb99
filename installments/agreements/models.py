"""The agreement record (DESIGN section 18): what a customer agreed to when
their plan activated, kept as it was made.

Immutable: the model refuses to save an existing row or to delete one, and on
PostgreSQL a trigger (migration `agreements`) refuses any UPDATE but the
erasure's (`ip` to NULL, `user_agent` to ''). A DELETE stays possible in SQL
for the purge of records past their retention period.
"""

from django.db import models
from django.utils import timezone

from config.api.ids import new_public_id


def new_agreement_id() -> str:
    return new_public_id("agr")


class AgreementImmutable(Exception):
    """An agreement record is never changed or deleted through the model."""


class Agreement(models.Model):
    """One plan's agreement: the key facts as JSON (`facts.plan_key_facts`),
    the customer's consent (when, from which address and browser), and the PDF
    made from the facts, stored as made, with its SHA-256."""

    public_id = models.CharField(max_length=40, unique=True, default=new_agreement_id)
    plan = models.OneToOneField(
        "installments.PaymentPlan", on_delete=models.PROTECT, related_name="agreement"
    )
    customer = models.ForeignKey(
        "payments.Customer", on_delete=models.PROTECT, related_name="+"
    )
    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="+"
    )
    version = models.CharField(max_length=32)
    accepted_at = models.DateTimeField()
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=255, blank=True)
    key_facts = models.JSONField()
    document = models.BinaryField()
    document_sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.public_id} ({self.plan_id})"

    def save(self, *args, **kwargs):
        if self.pk is not None and not self._state.adding:
            raise AgreementImmutable("An agreement record is never changed.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AgreementImmutable("An agreement record is never deleted.")
