"""Early payments: each try at paying installments before the engine collects
them, with its own processor reference, and what it claimed (to put it back on a
decline). Listed in installments/models.py, where Django looks for models."""

from datetime import timedelta

from django.db import models
from django.db.models import Q
from django.utils import timezone

from config.api.ids import new_public_id
from config.models import StateMachine, amount_positive
from payments.gateway.declines import EXPIRED
from payments.gateway.processors.base import PayChannel

# How long a bank transfer or USSD payment waits for the customer's money
# (DESIGN section 17): its account or code ends then, and so does the payment.
OFFLINE_EXPIRY = timedelta(minutes=30)
CHANNELS = [(channel, channel) for channel in PayChannel.ALL]


def new_early_payment_id() -> str:
    return new_public_id("pay")


def installment_early_reference(installment_public_id: str, number: int) -> str:
    """`<installment id>_p<k>`: the k-th early payment of one installment."""
    return f"{installment_public_id}_p{number}"


def payoff_reference(plan_public_id: str, number: int) -> str:
    """`<plan id>_po<k>`: the k-th payoff of a plan."""
    return f"{plan_public_id}_po{number}"


class EarlyPayment(StateMachine):
    """One try at paying early: one installment (`installment`) or everything
    left (`payoff`) in one charge under `reference`, which is never reused (the
    processor refuses a reference twice, and a declined one stays declined).

    Written `processing` with its claimed installments and committed before the
    processor is called; `leased_until` is when a pass may settle it by
    verifying the reference (the customer's request, or the processor's
    `charge.success`, usually settles it first). It moves once, stamped in
    `settled_at`; its installments' own histories record the moves it made.

    A bank transfer or USSD payment (`channel` in PayChannel.OFFLINE) has no
    payment method: it waits for the customer to pay the account or dial the
    code in `instructions` until `expires_at`, which is also its lease (the
    expiry sweep, offline.py, not the engine's recovery, ends it). An expired
    one is `failed` with the failure reason `expired`; the API calls it
    `expired` (serializers.py).
    """

    class Kind(models.TextChoices):
        INSTALLMENT = "installment"
        PAYOFF = "payoff"

    class Status(models.TextChoices):
        PROCESSING = "processing"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    TRANSITIONS = {
        Status.PROCESSING: frozenset({Status.SUCCEEDED, Status.FAILED}),
    }
    STAMPS = {Status.SUCCEEDED: "settled_at", Status.FAILED: "settled_at"}

    public_id = models.CharField(
        max_length=40, unique=True, default=new_early_payment_id
    )
    plan = models.ForeignKey(
        "installments.PaymentPlan",
        on_delete=models.PROTECT,
        related_name="early_payments",
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    # k in the reference: per installment for one, per plan for a payoff.
    number = models.PositiveSmallIntegerField()
    reference = models.CharField(max_length=100, unique=True)
    customer = models.ForeignKey(
        "payments.Customer", on_delete=models.PROTECT, related_name="+"
    )
    # None for a bank transfer or USSD payment: nothing saved is charged.
    payment_method = models.ForeignKey(
        "payments.PaymentMethod",
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    channel = models.CharField(max_length=16, choices=CHANNELS)
    # Offline payments only: when the account or code stops taking money.
    expires_at = models.DateTimeField(null=True, blank=True)
    # Offline payments only: what the customer pays to, as the processor gave
    # it: bank_name, account_number, account_name (a transfer), ussd_code (USSD)
    # and display_text.
    instructions = models.JSONField(default=dict, blank=True)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PROCESSING
    )
    status_changed_at = models.DateTimeField(default=timezone.now)
    leased_until = models.DateTimeField()
    failure_reason = models.CharField(max_length=32, blank=True)
    gateway_response = models.CharField(max_length=255, blank=True)
    processor_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["plan_id", "id"]
        constraints = [
            # The plan's lock serialises claims; this says it in the database.
            models.UniqueConstraint(
                fields=["plan"],
                condition=Q(status="processing"),
                name="early_payment_one_in_flight",
            ),
            amount_positive("early_payment_amount_positive"),
            # A saved method's charge, or an offline one that ends: never both.
            models.CheckConstraint(
                condition=(
                    Q(
                        channel__in=PayChannel.OFFLINE,
                        payment_method__isnull=True,
                        expires_at__isnull=False,
                    )
                    | Q(
                        channel__in=(PayChannel.CARD, PayChannel.BANK_ACCOUNT),
                        payment_method__isnull=False,
                        expires_at__isnull=True,
                    )
                ),
                name="early_payment_channel_fits",
            ),
        ]
        indexes = [
            # Early payments in flight, by the end of their lease.
            models.Index(
                fields=["leased_until", "id"],
                name="early_payment_in_flight",
                condition=Q(status="processing"),
            )
        ]

    def __str__(self):
        return f"{self.reference} {self.amount} ({self.status})"

    @property
    def offline(self) -> bool:
        return self.channel in PayChannel.OFFLINE

    @property
    def expired(self) -> bool:
        return self.status == self.Status.FAILED and self.failure_reason == EXPIRED


class EarlyPaymentItem(models.Model):
    """One installment an early payment claimed: the attempt it is on that
    installment, and what the installment was before, to put it back exactly
    on a decline (status, attempts, retry time, last failure)."""

    early_payment = models.ForeignKey(
        EarlyPayment, on_delete=models.CASCADE, related_name="items"
    )
    installment = models.ForeignKey(
        "installments.Installment",
        on_delete=models.PROTECT,
        related_name="early_payment_items",
    )
    amount = models.BigIntegerField()
    attempt = models.PositiveSmallIntegerField()
    prior_status = models.CharField(max_length=16)
    prior_next_attempt_at = models.DateTimeField(null=True, blank=True)
    prior_last_failure_reason = models.CharField(max_length=32, blank=True)

    class Meta:
        ordering = ["early_payment_id", "installment_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["early_payment", "installment"],
                name="early_payment_item_unique",
            )
        ]

    def __str__(self):
        return f"{self.early_payment_id}: installment {self.installment_id}"
