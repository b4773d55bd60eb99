"""Deposit attempts: each try at charging a plan's deposit (DESIGN section 7),
claimed before the processor is called and settled once (the claim, call and
settle of checkout/services/completion.py over services.py here)."""

from django.db import models
from django.db.models import Q
from django.utils import timezone

from config.api.ids import new_public_id
from config.models import StateMachine, amount_positive
from payments.gateway.processors.base import PayChannel

# A payment's public id (`pay_...`), the prefix early payments by transfer use
# too, so one sandbox endpoint can find either.
PAYMENT_ID_PREFIX = "pay"


def new_payment_id() -> str:
    return new_public_id(PAYMENT_ID_PREFIX)


class DepositAttempt(StateMachine):
    """One try at charging a plan's deposit, with its own processor reference
    `<plan id>_d<number>`; a declined reference is never charged again.

    Written (`processing`) and committed before the processor is called, so a
    crash leaves a row that is settled later by verifying the reference. The
    database allows one attempt in flight and one success per plan. It moves
    once (processing -> outcome), stamped in `settled_at`: no separate history.

    By card or mandate (`channel` card or bank_account) it charges
    `payment_method`. By bank transfer or USSD (DESIGN section 17) it waits for
    the customer to pay the account or dial the code it holds until
    `expires_at`; `payment_method` is then the method the installments will
    be collected from, or none on a manual plan. `public_id` (`pay_...`) names
    it to the sandbox's complete and expire endpoints.
    """

    class Status(models.TextChoices):
        PROCESSING = "processing"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    TRANSITIONS = {
        Status.PROCESSING: frozenset({Status.SUCCEEDED, Status.FAILED}),
    }
    STAMPS = {Status.SUCCEEDED: "settled_at", Status.FAILED: "settled_at"}

    plan = models.ForeignKey(
        "installments.PaymentPlan",
        on_delete=models.PROTECT,
        related_name="deposit_attempts",
    )
    number = models.PositiveSmallIntegerField()
    reference = models.CharField(max_length=100, unique=True)
    customer = models.ForeignKey(
        "payments.Customer", on_delete=models.PROTECT, related_name="+"
    )
    payment_method = models.ForeignKey(
        "payments.PaymentMethod",
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    public_id = models.CharField(
        max_length=40, unique=True, null=True, blank=True, default=new_payment_id
    )
    channel = models.CharField(
        max_length=16,
        choices=[(channel, channel) for channel in PayChannel.ALL],
        default=PayChannel.CARD,
    )
    # Bank transfer and USSD: until when the customer may pay, and how.
    expires_at = models.DateTimeField(null=True, blank=True)
    bank_name = models.CharField(max_length=100, blank=True)
    account_number = models.CharField(max_length=20, blank=True)
    account_name = models.CharField(max_length=200, blank=True)
    ussd_code = models.CharField(max_length=60, blank=True)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    # The customer's consent to the key facts (DESIGN section 18), given with
    # the completion that opened this attempt: when, and from which address
    # and browser. The agreement record is made from the succeeding attempt's.
    terms_accepted_at = models.DateTimeField(null=True, blank=True)
    terms_ip = models.GenericIPAddressField(null=True, blank=True)
    terms_user_agent = models.CharField(max_length=255, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PROCESSING
    )
    status_changed_at = models.DateTimeField(default=timezone.now)
    failure_reason = models.CharField(max_length=32, blank=True)
    gateway_response = models.CharField(max_length=255, blank=True)
    processor_id = models.CharField(max_length=64, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["plan_id", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["plan", "number"], name="deposit_attempt_number_unique"
            ),
            models.UniqueConstraint(
                fields=["plan"],
                condition=Q(status="processing"),
                name="deposit_attempt_one_in_flight",
            ),
            models.UniqueConstraint(
                fields=["plan"],
                condition=Q(status="succeeded"),
                name="deposit_attempt_one_success",
            ),
            amount_positive("deposit_attempt_amount_positive"),
        ]

    def __str__(self):
        return f"{self.reference} {self.amount} ({self.status})"

    @property
    def offline(self) -> bool:
        """Paid by the customer (bank transfer or USSD), not charged."""
        return self.channel in PayChannel.OFFLINE
