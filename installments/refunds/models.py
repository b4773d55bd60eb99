"""A plan's refunds, the processor refunds (parts) each asks for, the
installments each reduced, and the answers kept for `Idempotency-Key`."""

from django.db import models
from django.db.models import F, Q
from django.utils import timezone

from config.api.ids import new_public_id
from config.models import StateMachine, amount_positive
from config.text import no_control_characters


def new_refund_id() -> str:
    return new_public_id("rf")


class Refund(StateMachine):
    """A merchant's refund off one plan, asked for `amount_requested`.

    What it really did, true at every moment (docs/refunds.md):
    `amount_reduced` was taken off unpaid installments (no money moved, never
    undone); `amount_returned` is the money of its parts not failed (paid back,
    or on its way while a part is open); `amount_failed` is the money of its
    failed parts (back in the wallet, refundable again); `amount` is what it
    took off the order, `amount_reduced + amount_returned`, which is what it
    counts in `plan.amount_refunded`. A part's failure moves its money from
    `amount_returned` (and `amount`) to `amount_failed`, in the transaction that
    takes it out of `plan.amount_refunded`.

    One `RefundPart` per collection refunded. Created `processed` when no money
    moves, else `pending` until every part is settled: then `processed`, or
    `failed` when a part failed (its money is back in the wallet; the reductions
    stay).
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        PROCESSED = "processed"
        FAILED = "failed"

    TRANSITIONS = {
        Status.PENDING: frozenset({Status.PROCESSED, Status.FAILED}),
    }
    STAMPS = {Status.PROCESSED: "processed_at", Status.FAILED: "failed_at"}

    public_id = models.CharField(max_length=40, unique=True, default=new_refund_id)
    plan = models.ForeignKey(
        "installments.PaymentPlan", on_delete=models.PROTECT, related_name="refunds"
    )
    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="+"
    )
    amount_requested = models.BigIntegerField()
    amount = models.BigIntegerField()
    amount_reduced = models.BigIntegerField()
    amount_returned = models.BigIntegerField()
    amount_failed = models.BigIntegerField(default=0)
    currency = models.CharField(max_length=3, default="NGN")
    # The customer reads it (DESIGN section 18): one line, as typed text is.
    reason = models.CharField(max_length=255, validators=[no_control_characters])
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    status_changed_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount_requested__gt=0)
                & Q(amount__gte=0)
                & Q(amount_reduced__gte=0)
                & Q(amount_returned__gte=0)
                & Q(amount_failed__gte=0)
                & Q(amount=F("amount_reduced") + F("amount_returned"))
                & Q(amount_requested=F("amount") + F("amount_failed")),
                name="refund_amounts_true",
            ),
        ]
        indexes = [
            models.Index(fields=["plan", "-created_at"], name="refund_plan_idx"),
        ]

    def __str__(self):
        return f"{self.public_id} {self.amount} ({self.status})"

    @property
    def amount_pending(self) -> int:
        """Of `amount_returned`, the money of parts still open: on its way to
        the customer, and may yet fail (reads the parts; prefetch them)."""
        return sum(
            part.amount for part in self.parts.all() if part.status in RefundPart.OPEN
        )


def part_reference(refund_public_id: str, number: int) -> str:
    """`<refund id>_<n>`: the processor refund's own reference, deterministic so
    that a lost answer is found again and never refunded twice."""
    return f"{refund_public_id}_{number}"


class RefundPart(StateMachine):
    """One processor refund of a refund, against one collection (its processor
    reference), for at most what that collection has left.

    Written `requesting` (and the money moved into `refunds_in_transit`) in the
    refund's transaction; asked of the processor after the commit. `requesting`
    while the outcome of the request is unknown (asked again, same reference, by
    the poll), `pending` once the processor has it, then `processed` or `failed`
    (the money goes back to the wallet and the fee account).
    """

    class Status(models.TextChoices):
        REQUESTING = "requesting"
        PENDING = "pending"
        PROCESSED = "processed"
        FAILED = "failed"

    TRANSITIONS = {
        Status.REQUESTING: frozenset({Status.PENDING, Status.PROCESSED, Status.FAILED}),
        Status.PENDING: frozenset({Status.PROCESSED, Status.FAILED}),
    }
    STAMPS = {
        Status.PENDING: "pending_at",
        Status.PROCESSED: "processed_at",
        Status.FAILED: "failed_at",
    }
    OPEN = (Status.REQUESTING, Status.PENDING)

    refund = models.ForeignKey(Refund, on_delete=models.PROTECT, related_name="parts")
    number = models.PositiveSmallIntegerField()
    reference = models.CharField(max_length=64, unique=True)
    # The processor reference of the collection (charge) refunded.
    collection_reference = models.CharField(max_length=120)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.REQUESTING
    )
    status_changed_at = models.DateTimeField(default=timezone.now)
    processor_refund_id = models.CharField(max_length=64, blank=True)
    processor_status = models.CharField(max_length=32, blank=True)
    # Requests made so far (the first after the commit, then the poll's), and
    # when the processor was last asked about it (the claim of the next ask).
    requests = models.PositiveSmallIntegerField(default=0)
    last_requested_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    pending_at = models.DateTimeField(null=True, blank=True)
    processed_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["refund_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["refund", "number"], name="refund_part_number_unique"
            ),
            amount_positive("refund_part_amount_positive"),
        ]
        indexes = [
            models.Index(fields=["collection_reference"], name="refund_part_coll_idx"),
            # The poll: parts whose outcome is still open.
            models.Index(
                fields=["last_requested_at", "id"],
                name="refund_part_open",
                condition=Q(status__in=["requesting", "pending"]),
            ),
        ]

    def __str__(self):
        return f"{self.reference} {self.amount} ({self.status})"


class RefundReduction(models.Model):
    """What a refund took off one unpaid installment (append-only): the audit of
    `Installment.original_amount - amount`."""

    refund = models.ForeignKey(
        Refund, on_delete=models.PROTECT, related_name="reductions"
    )
    installment = models.ForeignKey(
        "installments.Installment", on_delete=models.PROTECT, related_name="+"
    )
    amount = models.BigIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["refund_id", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["refund", "installment"], name="refund_reduction_unique"
            ),
            amount_positive("refund_reduction_amount_positive"),
        ]

    def __str__(self):
        return f"{self.refund_id} -{self.amount} on {self.installment_id}"


class RefundIdempotencyRecord(models.Model):
    """The refund a merchant's `Idempotency-Key` created, kept 24 hours (the
    rules of endpoint 2): a repeated key within them replays it."""

    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    key = models.UUIDField()
    refund = models.ForeignKey(Refund, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "key"], name="one_refund_record_per_key"
            )
        ]

    def __str__(self):
        return f"{self.key} -> {self.refund_id}"
