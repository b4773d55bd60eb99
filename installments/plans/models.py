"""Payment plans and their installments (DESIGN section 7), the shared core
every feature of installments builds on; the features' models (deposit
attempts, early payments, refunds, reschedules, messages) are in their own
subpackages, and installments/models.py lists them all for Django.

Statuses change only through `transition_to()`, which refuses a move the
transitions map does not allow, stamps the time on the row and appends a
status-change row (the history). Callers hold the row's lock
(`select_for_update`) and their own transaction.
"""

from datetime import datetime, time
from typing import TYPE_CHECKING

from django.db import models
from django.db.models import Q
from django.utils import timezone

from config.api.ids import new_public_id
from config.models import StateMachine
from config.text import no_control_characters

if TYPE_CHECKING:
    from ..early.models import EarlyPayment

from . import rules
from .history import InstallmentStatusChange, PaymentPlanStatusChange


def new_plan_id() -> str:
    return new_public_id("plan")


def new_installment_id() -> str:
    return new_public_id("inst")


class PaymentPlan(StateMachine):
    """One order bought on installments by one customer from one merchant.

    Created `pending` when the customer first confirms checkout; the terms
    (deposit, installment amounts, schedule) are stored here and recomputed on
    every new deposit attempt while the plan is pending. The installments are
    created when the deposit is collected (`active`).
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        ACTIVE = "active"
        COMPLETED = "completed"
        DEFAULTED = "defaulted"
        CANCELLED = "cancelled"
        # A collection of it was charged back (a dispute lost or accepted,
        # DESIGN section 19): nothing is collected until its merchant resumes
        # or cancels it.
        DISPUTED = "disputed"

    class Collection(models.TextChoices):
        """How its installments are paid (DESIGN section 17): `auto`, charged
        by the engine; `manual`, a plan its customer finished at checkout with
        no card or mandate because the merchant had `manual_collection` on.
        Decided when the deposit is claimed and fixed once the plan is active,
        so a later change of the merchant's setting changes no plan. The engine
        charges a manual plan's installments too once its customer has a
        method; without one it tells the customer the installment is due."""

        AUTO = "auto"
        MANUAL = "manual"

    TRANSITIONS = {
        Status.PENDING: frozenset({Status.ACTIVE, Status.CANCELLED}),
        Status.ACTIVE: frozenset(
            {Status.COMPLETED, Status.DEFAULTED, Status.CANCELLED, Status.DISPUTED}
        ),
        # A defaulted plan may still be cancelled by its merchant (DESIGN 14).
        Status.DEFAULTED: frozenset({Status.CANCELLED}),
        # A dispute lost after the last installment was paid (DESIGN 19).
        Status.COMPLETED: frozenset({Status.DISPUTED}),
        Status.DISPUTED: frozenset({Status.ACTIVE, Status.CANCELLED}),
    }
    STAMPS = {
        Status.ACTIVE: "activated_at",
        Status.COMPLETED: "completed_at",
        Status.DEFAULTED: "defaulted_at",
        Status.CANCELLED: "cancelled_at",
    }

    public_id = models.CharField(max_length=40, unique=True, default=new_plan_id)
    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="payment_plans"
    )
    customer = models.ForeignKey(
        "payments.Customer", on_delete=models.PROTECT, related_name="payment_plans"
    )
    order_reference = models.CharField(max_length=100)
    currency = models.CharField(max_length=3, default="NGN")
    total_amount = models.BigIntegerField()
    deposit_amount = models.BigIntegerField()
    deposit_percent = models.PositiveSmallIntegerField()
    tier = models.CharField(max_length=1)
    customer_score = models.PositiveSmallIntegerField()
    schedule_type = models.CharField(max_length=16)
    installment_count = models.PositiveSmallIntegerField()
    # A monthly plan's chosen payday (DESIGN 15): "" for none, "1"-"28" or
    # "last_working_day"; kept so that the due dates made when the deposit is
    # collected (possibly by a later settlement) snap to it. Read it as `payday`.
    preferred_day = models.CharField(max_length=16, blank=True, default="")
    collection = models.CharField(
        max_length=8, choices=Collection.choices, default=Collection.AUTO
    )
    # What refunds took off the order so far (reductions and money not given
    # back by a failed processor refund), changed under the plan's lock in the
    # refund's own transaction (installments/refunds/).
    amount_refunded = models.BigIntegerField(default=0)
    # The terms while pending; once active the Installment rows are the truth.
    installment_amounts = models.JSONField(default=list)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    status_changed_at = models.DateTimeField(default=timezone.now)
    # Deposit attempts so far: the next attempt's number is this plus one, so
    # a reference is never reused after a decline.
    deposit_attempt_count = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    activated_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    defaulted_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    # The merchant's words when they cancelled it (POST .../cancel).
    # The customer reads it in the notice (DESIGN section 18): one line.
    cancellation_reason = models.CharField(
        max_length=255, blank=True, validators=[no_control_characters]
    )
    # Disputes of its collections not yet resolved (DESIGN section 19): while
    # any is open nothing of the plan is charged, by the engine or early.
    # Changed under the plan's lock by installments/disputes/.
    open_disputes = models.PositiveSmallIntegerField(default=0)
    # What disputes lost or accepted took back of its collections.
    amount_charged_back = models.BigIntegerField(default=0)
    # Set once, when the merchant's release rule is first satisfied.
    goods_released_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(total_amount__gt=0)
                & Q(deposit_amount__gt=0)
                & Q(deposit_amount__lte=models.F("total_amount")),
                name="payment_plan_amounts_valid",
            ),
            models.CheckConstraint(
                condition=Q(installment_count__gte=1) & Q(installment_count__lte=12),
                name="payment_plan_installment_count_1_12",
            ),
            models.CheckConstraint(
                condition=Q(preferred_day__in=rules.PREFERRED_DAYS_STORED),
                name="payment_plan_preferred_day_valid",
            ),
            models.CheckConstraint(
                condition=Q(amount_refunded__gte=0)
                & Q(amount_refunded__lte=models.F("total_amount")),
                name="payment_plan_amount_refunded_valid",
            ),
        ]
        indexes = [
            models.Index(
                fields=["merchant", "order_reference"], name="payment_plan_order_idx"
            ),
            models.Index(fields=["customer", "status"], name="payment_plan_cust_idx"),
        ]

    def __str__(self):
        return f"{self.public_id} {self.order_reference} ({self.status})"

    @property
    def payday(self) -> rules.PreferredDay:
        """`preferred_day` as the rules take it: 1-28, "last_working_day" or None."""
        return rules.preferred_day_loaded(self.preferred_day)

    def history_row(self, old, new, at):
        return PaymentPlanStatusChange(
            plan=self, from_status=old, to_status=new, changed_at=at
        )


def start_of_day(day) -> datetime:
    """Midnight of a Lagos calendar date, as an aware datetime."""
    return timezone.make_aware(datetime.combine(day, time.min))


class Installment(StateMachine):
    """One scheduled collection of a plan, after the deposit.

    `scheduled` -> `processing` (claimed, charge in flight) -> `paid`;
    `processing` -> `failed` (`next_attempt_at` set) -> `processing` -> ...;
    `failed` -> `defaulted` after the last retry; `failed` ->
    `action_required` after a hard decline left no method to try (DESIGN
    section 15: the customer is asked to add one; `next_attempt_at` is the end
    of the wait, and a method added meanwhile makes it claimable at once) ->
    `processing`; an unpaid one (`scheduled`, `failed`, `action_required`) ->
    `cancelled` by a refund that reduces it to 0 or by the plan's cancellation
    (DESIGN section 14). An early payment (early/) claims it the same way and,
    when declined, puts it back as it was: `processing` -> `scheduled` (or
    `failed`). `amount` is what is still owed after reductions,
    `original_amount` what it was at creation. `next_attempt_at` starts at the
    beginning of the due date (Lagos), so "due by the end of date D" and "retry
    whose time has come" are one condition for the collection engine. While
    `processing` it is the end of the claim's lease: an attempt still in flight
    then is settled by a later pass, which verifies its references first. It is
    empty once nothing more will be tried (paid, defaulted, or the plan ended).
    """

    class Status(models.TextChoices):
        SCHEDULED = "scheduled"
        PROCESSING = "processing"
        PAID = "paid"
        FAILED = "failed"
        DEFAULTED = "defaulted"
        CANCELLED = "cancelled"
        ACTION_REQUIRED = "action_required"

    TRANSITIONS = {
        Status.SCHEDULED: frozenset({Status.PROCESSING, Status.CANCELLED}),
        # Back to `action_required` too: an early payment that was declined
        # puts the installment back as it was.
        Status.PROCESSING: frozenset(
            {Status.PAID, Status.FAILED, Status.SCHEDULED, Status.ACTION_REQUIRED}
        ),
        Status.FAILED: frozenset(
            {
                Status.PROCESSING,
                Status.DEFAULTED,
                Status.CANCELLED,
                Status.ACTION_REQUIRED,
            }
        ),
        Status.ACTION_REQUIRED: frozenset({Status.PROCESSING, Status.CANCELLED}),
    }
    STAMPS = {
        Status.PAID: "paid_at",
        Status.FAILED: "failed_at",
        Status.DEFAULTED: "defaulted_at",
        Status.CANCELLED: "cancelled_at",
        Status.ACTION_REQUIRED: "action_required_at",
    }
    # What a refund may reduce, a cancellation cancels and an early payment
    # may pay (DESIGN 14, 15).
    UNPAID = (Status.SCHEDULED, Status.FAILED, Status.ACTION_REQUIRED)

    public_id = models.CharField(max_length=40, unique=True, default=new_installment_id)
    plan = models.ForeignKey(
        PaymentPlan, on_delete=models.PROTECT, related_name="installments"
    )
    # The side of the plan's merchant row (DESIGN section 21), copied when the
    # installment is made and never changed: the engine's indexes lead with
    # it, so that each side's pass reads only its own due rows in order and
    # neither side's backlog slows the other's collection.
    livemode = models.BooleanField(default=True)
    sequence = models.PositiveSmallIntegerField()
    amount = models.BigIntegerField()
    original_amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    due_date = models.DateField()
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.SCHEDULED
    )
    status_changed_at = models.DateTimeField(default=timezone.now)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    last_failure_reason = models.CharField(max_length=32, blank=True)
    # The processor reference of the charge that paid it (or of the last try
    # that failed): `<installment id>_a<attempt>`, `..._a<attempt>m<k>` for the
    # k-th payment method tried in that attempt.
    processor_reference = models.CharField(max_length=100, blank=True)
    # Partial collection (DESIGN section 15): what a partial debit collected
    # of `amount` while the installment is unpaid; the rest is what is still
    # owed (`amount_owed`: `amount - amount_paid`), and what any later charge
    # asks for.
    amount_paid = models.BigIntegerField(default=0)
    # The installment's one partial debit (`<installment id>_a<attempt>p`),
    # written and committed before the processor is asked: while its attempt
    # is in flight, a pass that takes it over verifies this reference.
    partial_reference = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    paid_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)
    defaulted_at = models.DateTimeField(null=True, blank=True)
    cancelled_at = models.DateTimeField(null=True, blank=True)
    # When it last began waiting for the customer to add a method.
    action_required_at = models.DateTimeField(null=True, blank=True)
    # How many times its due date was moved (reschedules/): a reminder is sent
    # once per due date it had (notifications/selectors.py).
    reschedule_count = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["plan_id", "sequence"]
        constraints = [
            models.UniqueConstraint(
                fields=["plan", "sequence"], name="installment_sequence_unique"
            ),
            # Reduced by refunds, never below 0 nor above what it was; only a
            # cancelled installment may owe nothing.
            models.CheckConstraint(
                condition=Q(amount__gte=0)
                & Q(amount__lte=models.F("original_amount"))
                & (Q(amount__gt=0) | Q(status="cancelled")),
                name="installment_amount_valid",
            ),
            # A partial collection never exceeds what the installment is for.
            models.CheckConstraint(
                condition=Q(amount_paid__gte=0)
                & Q(amount_paid__lte=models.F("amount")),
                name="installment_amount_paid_valid",
            ),
        ]
        indexes = [
            # The collection engine's claim: `status IN (scheduled, failed) AND
            # livemode = side AND next_attempt_at <= cutoff ORDER BY
            # next_attempt_at, id`, read in index order up to the batch size,
            # without sorting all due rows; each side's pass its own range.
            models.Index(
                fields=["livemode", "next_attempt_at", "id"],
                name="installment_claimable",
                condition=Q(status__in=["scheduled", "failed"]),
            ),
            # Installments waiting for a payment method, by the end of their
            # wait: the claim of those whose wait ended or whose customer added
            # a method reads these few rows, never the scheduled ones.
            models.Index(
                fields=["livemode", "next_attempt_at", "id"],
                name="installment_waiting",
                condition=Q(status="action_required"),
            ),
            # Attempts in flight, by the end of their lease (stale ones first).
            models.Index(
                fields=["livemode", "next_attempt_at", "id"],
                name="installment_in_flight",
                condition=Q(status="processing"),
            ),
        ]

    # Set (not saved) by an early payment on the rows it moves, so that their
    # history rows name it.
    moved_by_early_payment: "EarlyPayment | None" = None

    def __str__(self):
        return f"{self.public_id} #{self.sequence} {self.amount} ({self.status})"

    @property
    def amount_collected(self) -> int:
        """What it has collected, as its representations say `amount_paid`:
        all of `amount` once paid (however many charges it took), what a
        partial collection took while it is not (DESIGN section 15)."""
        return self.amount if self.status == self.Status.PAID else self.amount_paid

    @property
    def amount_owed(self) -> int:
        """What is still to collect of it: `amount` less what a partial
        collection took (DESIGN section 15)."""
        return self.amount - self.amount_paid

    def history_row(self, old, new, at):
        # By ids (the engine builds two of these per collection): assigning the
        # related objects makes each row a fifth dearer.
        early = self.moved_by_early_payment
        return InstallmentStatusChange(
            installment_id=self.pk,
            from_status=old,
            to_status=new,
            attempt=self.attempts,
            reason=self.last_failure_reason if new == self.Status.FAILED else "",
            early_payment_id=early.pk if early is not None else None,
            changed_at=at,
        )
