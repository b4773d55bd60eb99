"""A pay link: one plan's pay page without signing in (DESIGN section 17)."""

from datetime import timedelta

from django.db import models
from django.utils import timezone

from config.api.ids import new_public_id

# How long a link opens its page.
LIFETIME = timedelta(days=7)


def new_pay_link_id() -> str:
    return new_public_id("pl")


def default_expiry():
    return timezone.now() + LIFETIME


class PayLink(models.Model):
    """Opens `plan`'s pay page until `expires_at`, unless revoked. The token is
    never stored: `tokens.token_of(public_id)` derives it, `token_hash` finds
    the link by it. A link a message carries is made once per message
    (`source`: `<kind>:<subject>` of that message), so a message recorded again
    after a crash carries the same link."""

    class CreatedBy(models.TextChoices):
        MESSAGE = "message"  # carried by a reminder or notice to the customer
        MERCHANT = "merchant"  # POST /api/v1/payment-plans/{plan_id}/pay-links
        CUSTOMER = "customer"  # "send me a new link" on the page of an old one

    public_id = models.CharField(max_length=40, unique=True, default=new_pay_link_id)
    plan = models.ForeignKey(
        "installments.PaymentPlan", on_delete=models.PROTECT, related_name="pay_links"
    )
    token_hash = models.CharField(max_length=64, unique=True)
    created_by = models.CharField(max_length=16, choices=CreatedBy.choices)
    source = models.CharField(max_length=160, unique=True, null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(default=default_expiry)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["plan", "created_at"], name="paylink_plan_created")
        ]

    def __str__(self):
        return f"{self.public_id} ({self.state()})"

    def state(self, now=None) -> str:
        """`open`, `expired` or `revoked`."""
        if self.revoked_at is not None:
            return "revoked"
        if (now or timezone.now()) >= self.expires_at:
            return "expired"
        return "open"

    @property
    def is_open(self) -> bool:
        return self.state() == "open"
