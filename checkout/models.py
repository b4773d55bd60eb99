from datetime import datetime

from django.db import models
from django.db.models import Q
from django.utils import timezone

from config.api.ids import new_public_id

SESSION_TOKEN_PREFIX = "fcs"


def new_session_token() -> str:
    return new_public_id(SESSION_TOKEN_PREFIX, bits=128)


class CheckoutSession(models.Model):
    """One attempt to check out one order (DESIGN section 7).

    `status` stores `open` or `completed` (completion is a later issue); `expired`
    is derived from `expires_at` by `status_at()`, so no job has to run on time for
    an old session to read as expired.
    """

    class Status(models.TextChoices):
        OPEN = "open"
        COMPLETED = "completed"
        EXPIRED = "expired"

    token = models.CharField(max_length=40, unique=True, default=new_session_token)
    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="checkout_sessions"
    )
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    title = models.CharField(max_length=200)
    order_reference = models.CharField(max_length=100)
    customer_email = models.EmailField(max_length=254, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.OPEN
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # An order is paid at most once, whatever races the checks above lose.
            models.UniqueConstraint(
                fields=["merchant", "order_reference"],
                condition=Q(status="completed"),
                name="one_completed_session_per_order",
            ),
            models.CheckConstraint(
                condition=Q(amount__gt=0), name="checkout_session_amount_positive"
            ),
        ]
        indexes = [
            models.Index(
                fields=["merchant", "order_reference"],
                name="checkout_session_order_idx",
            )
        ]
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.token} {self.order_reference} ({self.status})"

    def status_at(self, now: datetime | None = None) -> str:
        """`completed`, `expired` (open past `expires_at`) or `open`."""
        now = now or timezone.now()
        if self.status == self.Status.OPEN and now >= self.expires_at:
            return self.Status.EXPIRED
        return self.status


class IdempotencyRecord(models.Model):
    """The answer given to a merchant's `Idempotency-Key`, kept for 24 hours.

    The unique (merchant, key) constraint is what makes simultaneous requests with
    one key create one session: the record is inserted in the same transaction as
    the session, the losers' inserts fail, and they answer with the stored session.
    Only successful creations are recorded.
    """

    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.CASCADE, related_name="+"
    )
    key = models.UUIDField()
    session = models.ForeignKey(
        CheckoutSession, on_delete=models.CASCADE, related_name="+"
    )
    response_status = models.PositiveSmallIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "key"], name="one_idempotency_record_per_key"
            )
        ]

    def __str__(self):
        return f"{self.key} -> {self.session_id}"
