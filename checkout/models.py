from datetime import datetime

from django.db import models
from django.db.models import Q
from django.utils import timezone

from config.api.ids import new_public_id, random_token
from config.models import StateMachine, amount_positive

SESSION_TOKEN_PREFIX = "fcs"
LINK_ID_PREFIX = "pl"


def new_session_token() -> str:
    return new_public_id(SESSION_TOKEN_PREFIX, bits=128)


def new_link_id() -> str:
    return new_public_id(LINK_ID_PREFIX)


def new_link_slug() -> str:
    """Short enough to share, 64 random bits: not guessable, not enumerable."""
    return random_token(64)


class PaymentLink(models.Model):
    """A reusable link: every visit to `/l/<slug>` opens a fresh session."""

    public_id = models.CharField(max_length=40, unique=True, default=new_link_id)
    slug = models.CharField(max_length=16, unique=True, default=new_link_slug)
    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="payment_links"
    )
    title = models.CharField(max_length=200)
    description = models.CharField(max_length=1000, blank=True)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    redirect_url = models.URLField(max_length=2000, blank=True)
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [amount_positive("payment_link_amount_positive")]
        indexes = [
            models.Index(
                fields=["merchant", "-created_at"], name="payment_link_merchant"
            )
        ]

    def __str__(self):
        return f"{self.public_id} {self.title} ({'on' if self.is_active else 'off'})"


class CheckoutSession(StateMachine):
    """One attempt to check out one order (DESIGN section 7).

    `status` stores `open` or `completed` (the deposit was paid); `expired` is
    derived from `expires_at` by `status_at()`, so no job has to run on time for
    an old session to read as expired. A deposit charged just before expiry
    still completes the session.
    """

    class Status(models.TextChoices):
        OPEN = "open"
        COMPLETED = "completed"
        EXPIRED = "expired"

    # The whole lifecycle, though `expired` is read from `expires_at` and not
    # stored today.
    TRANSITIONS = {Status.OPEN: frozenset({Status.COMPLETED, Status.EXPIRED})}
    STAMPS = {Status.COMPLETED: "completed_at"}

    # Unique by the constraint below, not `unique=True`: on PostgreSQL that would
    # add a second (LIKE) index that no query uses and every insert pays for.
    token = models.CharField(max_length=40, default=new_session_token)
    # Indexed by `checkout_session_order_idx` (merchant first): no index of its own.
    merchant = models.ForeignKey(
        "merchants.Merchant",
        on_delete=models.PROTECT,
        related_name="checkout_sessions",
        db_index=False,
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
    # The payment plan of the first completion attempt (pending until the deposit
    # is paid; reused, with fresh terms, by later attempts).
    plan = models.OneToOneField(
        "installments.PaymentPlan",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="checkout_session",
    )
    # Set when the session was opened from a payment link (`/l/<slug>`).
    payment_link = models.ForeignKey(
        PaymentLink,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="sessions",
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["token"], name="checkout_session_token"),
            # An order is paid at most once, whatever races the checks above lose.
            models.UniqueConstraint(
                fields=["merchant", "order_reference"],
                condition=Q(status="completed"),
                name="one_completed_session_per_order",
            ),
            amount_positive("checkout_session_amount_positive"),
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

    # Indexed by the unique (merchant, key) constraint: no index of its own.
    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.CASCADE, related_name="+", db_index=False
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
