"""The outbox of merchant events and the record of their deliveries (DESIGN §10).

An `Event` is written in the same transaction as the change it announces, with its
`Delivery`: the row that says whether the event still has to go out and when. The
delivery rows, not the task queue, are the source of truth; a crashed worker, a lost
task or a worker that was down only delays an event. Every attempt, scheduled,
replayed or a test, is an append-only `DeliveryAttempt` (`dlv_...`).
"""

import json
from datetime import timedelta

from django.db import models
from django.db.models import Q

from config.api.ids import new_public_id
from config.models import StateMachine
from merchants.models import Merchant

# The closed catalogue of event types (docs/webhooks.md).
EVENT_TYPES = (
    "payment.success",
    "payment.failed",
    "payment_plan.installment_paid",
    "installment.paid",
    "installment.partially_paid",
    "goods.release",
    "debit.scheduled",
    "transfer.success",
    "refund.created",
    "refund.processed",
    "refund.failed",
    "payment_plan.cancelled",
    "payment_plan.completed",
    "payment_plan.defaulted",
    "payment_plan.rescheduled",
    "dispute.created",
    "dispute.updated",
    "dispute.won",
    "dispute.lost",
)
TEST_EVENT_TYPE = "webhook.test"

# The wait after each failed scheduled attempt: attempt 1 is sent at once, attempt
# n + 1 follows attempt n by RETRY_DELAYS[n - 1]; attempt 9 is the last.
RETRY_DELAYS = (
    timedelta(minutes=1),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=6),
    timedelta(hours=12),
    timedelta(hours=24),
    timedelta(hours=24),
)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1


def new_event_id() -> str:
    return new_public_id("evt")


def new_attempt_id() -> str:
    return new_public_id("dlv")


class Event(models.Model):
    """One event for one merchant. Immutable: `body` is the envelope serialized
    once, and every attempt sends exactly these bytes."""

    public_id = models.CharField(max_length=40, unique=True, default=new_event_id)
    merchant = models.ForeignKey(
        Merchant, on_delete=models.CASCADE, related_name="webhook_events"
    )
    event_type = models.CharField(max_length=64)
    body = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        indexes = [
            # Serves the events API and the dashboard's list in their order
            # (newest first, the id breaking ties within one emitting batch).
            models.Index(
                fields=["merchant", "-created_at", "-id"],
                name="webhooks_event_merchant_newest",
            )
        ]
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.event_type} {self.public_id}"

    @property
    def envelope(self) -> dict:
        return json.loads(self.body)

    @property
    def data(self) -> dict:
        return self.envelope["data"]

    @property
    def status(self) -> str:
        return self.delivery.status


class Delivery(StateMachine):
    """Where an event's delivery stands: `pending` (due at `next_attempt_at`),
    `delivered`, or `failed` after the last scheduled attempt.

    Transitions: pending -> delivered, pending -> failed, failed -> delivered (a
    replay). The delivery pass writes them set-based (`transition_where`), many
    rows per statement, each guarded by the state it leaves (`WHERE status =
    'pending'`), so a stale writer changes nothing.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    TRANSITIONS = {
        Status.PENDING: frozenset({Status.DELIVERED, Status.FAILED}),
        Status.FAILED: frozenset({Status.DELIVERED}),
    }
    STAMPS = {Status.DELIVERED: "delivered_at", Status.FAILED: "failed_at"}

    event = models.OneToOneField(
        Event, on_delete=models.CASCADE, related_name="delivery"
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    # Every attempt made, scheduled and replays (the dashboard's count).
    attempts = models.PositiveIntegerField(default=0)
    # Attempts of the retry schedule only: picks the next delay. A worker's claim
    # increments it, so a worker whose claim was taken over writes nothing.
    scheduled_attempts = models.PositiveSmallIntegerField(default=0)
    # While a worker holds a claim this is the end of its lease.
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            # Backs the claim query: WHERE status = 'pending' AND next_attempt_at
            # <= now ORDER BY next_attempt_at, id.
            models.Index(
                fields=["next_attempt_at", "id"],
                condition=Q(status="pending"),
                name="webhooks_delivery_due",
            )
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="pending", next_attempt_at__isnull=False)
                | (~Q(status="pending") & Q(next_attempt_at__isnull=True)),
                name="webhooks_delivery_pending_has_due_time",
            ),
            models.CheckConstraint(
                condition=Q(scheduled_attempts__lte=MAX_ATTEMPTS),
                name="webhooks_delivery_max_scheduled_attempts",
            ),
        ]

    def __str__(self):
        return f"{self.event.public_id}: {self.status}"


class DeliveryAttempt(models.Model):
    """One HTTP attempt (append-only). Failed ones are listed by endpoint 23.

    `trigger` says what sent it, and each trigger numbers its own attempts: the
    retry schedule's (1 to 9, the retry table of docs/webhooks.md), the
    merchant's replays (1, 2, ... of that event) and tests (each its own
    unstored `webhook.test` event, so always 1). Only a scheduled attempt that
    failed names a `next_attempt_at`.
    """

    class Trigger(models.TextChoices):
        SCHEDULED = "scheduled"
        REPLAY = "replay"
        TEST = "test"

    public_id = models.CharField(max_length=40, unique=True, default=new_attempt_id)
    # Null for a test: its event is not stored (`test_event_id` is its id).
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="attempts", null=True
    )
    test_event_id = models.CharField(max_length=40, blank=True)
    # Copied from the event so that endpoint 23 reads one index.
    merchant = models.ForeignKey(
        Merchant, on_delete=models.CASCADE, related_name="webhook_attempts"
    )
    attempt = models.PositiveIntegerField()
    trigger = models.CharField(max_length=16, choices=Trigger.choices)
    url = models.CharField(max_length=500, blank=True)
    delivered = models.BooleanField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    latency_ms = models.PositiveIntegerField()
    attempted_at = models.DateTimeField()
    # When the next scheduled attempt is due, as decided after this one failed.
    next_attempt_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["event", "trigger", "attempt"],
                name="webhooks_attempt_number_unique",
            ),
            models.CheckConstraint(
                condition=(
                    Q(trigger="test", event__isnull=True)
                    & ~Q(test_event_id="")
                    & Q(attempt=1)
                )
                | (~Q(trigger="test") & Q(event__isnull=False, test_event_id="")),
                name="webhooks_attempt_test_has_no_stored_event",
            ),
            models.CheckConstraint(
                condition=Q(trigger="scheduled") | Q(next_attempt_at__isnull=True),
                name="webhooks_attempt_only_scheduled_names_next",
            ),
        ]
        indexes = [
            models.Index(
                fields=["merchant", "-attempted_at", "-id"],
                condition=Q(delivered=False),
                name="webhooks_attempt_failed",
            ),
            models.Index(
                fields=["merchant", "-attempted_at", "-id"],
                condition=Q(trigger="test"),
                name="webhooks_attempt_test",
            ),
        ]
        ordering = ["-attempted_at", "-id"]

    def __str__(self):
        outcome = "delivered" if self.delivered else self.error or "failed"
        return f"{self.public_id} {self.trigger} #{self.attempt} {outcome}"

    @property
    def event_public_id(self) -> str:
        return self.test_event_id if self.event_id is None else self.event.public_id

    @property
    def event_type(self) -> str:
        return TEST_EVENT_TYPE if self.event_id is None else self.event.event_type
