"""Stored payment methods and the set-up flows that create them (DESIGN section 9)."""

import hashlib

from django.db import models
from django.db.models import Q

from config.api.ids import new_public_id
from config.db.encryption import EncryptedTextField
from config.models import StateMachine

from ..customers.models import Customer
from ..gateway.processors.base import PayChannel

MAX_WRONG_OTPS = 5


def new_payment_method_id() -> str:
    return new_public_id("pm")


def secret_digest(value: str) -> str:
    """Lookup key for a secret kept encrypted (authorization codes): Fernet
    ciphertext differs on every save, so equality searches use this hash."""
    return hashlib.sha256(f"payments:{value}".encode()).hexdigest()


class PaymentMethod(StateMachine):
    """A customer's card authorization or bank mandate, charged for installments.

    Invariants held by the database: at most one default per customer and side
    (live, test), the default is active, and one active method per card
    (signature) or bank account on each side.
    Rows are never removed: deleting sets `status=deleted`, a processor revocation
    sets `status=revoked`, a charge declined because the card has expired sets
    `status=expired` (both still listed, as inactive history).
    """

    class Type(models.TextChoices):
        CARD = "card"
        BANK = "bank"

    class Status(models.TextChoices):
        ACTIVE = "active"
        REVOKED = "revoked"
        EXPIRED = "expired"
        DELETED = "deleted"

    TRANSITIONS = {
        Status.ACTIVE: frozenset({Status.REVOKED, Status.EXPIRED, Status.DELETED}),
        # The customer deletes a revoked or expired method from the listing.
        Status.REVOKED: frozenset({Status.DELETED}),
        Status.EXPIRED: frozenset({Status.DELETED}),
    }
    STAMPS = {
        Status.REVOKED: "revoked_at",
        Status.EXPIRED: "expired_at",
        Status.DELETED: "deleted_at",
    }

    public_id = models.CharField(
        max_length=40, unique=True, default=new_payment_method_id
    )
    customer = models.ForeignKey(
        Customer, on_delete=models.PROTECT, related_name="payment_methods"
    )
    type = models.CharField(max_length=8, choices=Type.choices)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.ACTIVE
    )
    is_default = models.BooleanField(default=False)
    # The side it was saved on (docs/test-mode.md, "Customers and their
    # methods"): a card saved in a test checkout is a test method, made and
    # charged at the sandbox, only ever offered to and charged for test plans.
    livemode = models.BooleanField(default=True)
    label = models.CharField(max_length=120)
    last4 = models.CharField(max_length=4, blank=True)
    brand = models.CharField(max_length=32, blank=True)
    exp_month = models.CharField(max_length=2, blank=True)
    exp_year = models.CharField(max_length=4, blank=True)
    bank_code = models.CharField(max_length=16, blank=True)
    bank_name = models.CharField(max_length=100, blank=True)
    processor = models.CharField(max_length=16)
    # The processor's reusable authorization: a bearer credential for charging,
    # so it is encrypted at rest and looked up by its digest.
    authorization_code = EncryptedTextField()
    authorization_code_hash = models.CharField(max_length=64, db_index=True)
    # Card: digest of the processor's card signature. Bank: digest of bank code
    # and account number. The same card or account saved twice shares it.
    fingerprint = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # A bank mandate's terms (methods/terms.py), accepted when it was created:
    # when, from which address and browser, which version.
    mandate_terms_accepted_at = models.DateTimeField(null=True, blank=True)
    mandate_terms_ip = models.GenericIPAddressField(null=True, blank=True)
    mandate_terms_user_agent = models.CharField(max_length=255, blank=True)
    mandate_terms_version = models.CharField(max_length=32, blank=True)
    revocation_reason = models.CharField(max_length=64, blank=True)
    expired_at = models.DateTimeField(null=True, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["customer", "livemode"],
                condition=Q(is_default=True),
                name="payment_method_one_default_per_customer_side",
            ),
            models.UniqueConstraint(
                fields=["customer", "livemode", "fingerprint"],
                condition=Q(status="active"),
                name="payment_method_active_fingerprint_side_unique",
            ),
            models.CheckConstraint(
                condition=Q(is_default=False) | Q(status="active"),
                name="payment_method_default_is_active",
            ),
        ]
        indexes = [models.Index(fields=["customer", "status"])]

    def __str__(self):
        return f"{self.label} ({self.public_id})"

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE

    @property
    def channel(self) -> str:
        """The PayChannel a charge of this method comes by (every payment
        event's `channel`): a card, or a bank-account mandate."""
        if self.type == self.Type.BANK:
            return PayChannel.BANK_ACCOUNT
        return PayChannel.CARD

    @property
    def masked_authorization(self) -> str:
        code = self.authorization_code or ""
        return f"{code[:5]}…{code[-4:]}" if len(code) > 12 else "…"


class CardSetup(StateMachine):
    """One card redirect flow: initialize (12), then verify (13)."""

    class Status(models.TextChoices):
        INITIALIZED = "initialized"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    TRANSITIONS = {
        Status.INITIALIZED: frozenset({Status.SUCCEEDED, Status.FAILED}),
        # A verify that finds the processor's success saves the card even
        # after a verify that was told otherwise ended the setup: the money
        # was taken, and is recorded and refunded with the card.
        Status.FAILED: frozenset({Status.SUCCEEDED}),
    }
    STAMPS = {Status.SUCCEEDED: "completed_at", Status.FAILED: "completed_at"}

    reference = models.CharField(max_length=100, unique=True)
    customer = models.ForeignKey(
        Customer, on_delete=models.PROTECT, related_name="card_setups"
    )
    processor = models.CharField(max_length=16)
    # The side of the method it saves: a setup started from a test checkout.
    livemode = models.BooleanField(default=True)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    callback_url = models.URLField(max_length=2000)
    authorization_url = models.URLField(max_length=2000, blank=True)
    is_default = models.BooleanField(default=False)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.INITIALIZED
    )
    failure_message = models.CharField(max_length=255, blank=True)
    payment_method = models.ForeignKey(
        PaymentMethod, null=True, blank=True, on_delete=models.PROTECT
    )
    created_at = models.DateTimeField(auto_now_add=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return self.reference


class BankMandate(StateMachine):
    """One bank mandate flow: initiate (14), then steps (15-18) until success."""

    class Status(models.TextChoices):
        IN_PROGRESS = "in_progress"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        DEAD = "dead"  # 5 wrong OTPs

    TRANSITIONS = {
        Status.IN_PROGRESS: frozenset({Status.SUCCEEDED, Status.FAILED, Status.DEAD}),
        # A step that outlived its claim (services/mandates.py) may bring the
        # processor's success after the request that took the claim over ended
        # the mandate: the money was taken, so the account is saved as ever.
        Status.FAILED: frozenset({Status.SUCCEEDED}),
        Status.DEAD: frozenset({Status.SUCCEEDED}),
    }
    STAMPS = {
        Status.SUCCEEDED: "completed_at",
        Status.FAILED: "completed_at",
        Status.DEAD: "completed_at",
    }

    reference = models.CharField(max_length=100, unique=True)
    customer = models.ForeignKey(
        Customer, on_delete=models.PROTECT, related_name="bank_mandates"
    )
    processor = models.CharField(max_length=16)
    # The side of the method it saves: a mandate started from a test checkout.
    livemode = models.BooleanField(default=True)
    bank_code = models.CharField(max_length=16)
    bank_name = models.CharField(max_length=100)
    account_number = models.CharField(max_length=10)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    is_default = models.BooleanField(default=False)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.IN_PROGRESS
    )
    # submit_otp, submit_birthday, submit_phone, open_url, pending, success.
    next_action = models.CharField(max_length=32, blank=True)
    display_text = models.CharField(max_length=255, blank=True)
    url = models.URLField(max_length=2000, blank=True)
    # Wrong OTPs the processor refused (only those: a submission in flight or
    # one that failed otherwise does not count).
    otp_failures = models.PositiveSmallIntegerField(default=0)
    # The bank step ended with an authorization the processor will not charge
    # again: the mandate continues with a direct-debit authorization request
    # (its open_url step), known by the processor's reference once made.
    direct_debit = models.BooleanField(default=False)
    direct_debit_reference = models.CharField(max_length=100, blank=True)
    # The mandate terms the customer accepted to start it, carried to the
    # payment method it saves.
    terms_accepted_at = models.DateTimeField(null=True, blank=True)
    terms_ip = models.GenericIPAddressField(null=True, blank=True)
    terms_user_agent = models.CharField(max_length=255, blank=True)
    terms_version = models.CharField(max_length=32, blank=True)
    # The step being sent to the processor now, if any: requests for the same
    # reference take turns (one step at a time reaches the bank); a claim older
    # than the service's patience for the processor was lost and is taken over.
    step_claim = models.CharField(max_length=32, blank=True)
    step_claimed_at = models.DateTimeField(null=True, blank=True)
    failure_message = models.CharField(max_length=255, blank=True)
    payment_method = models.ForeignKey(
        PaymentMethod, null=True, blank=True, on_delete=models.PROTECT
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(otp_failures__lte=MAX_WRONG_OTPS),
                name="bank_mandate_otp_failures_bounded",
            )
        ]

    def __str__(self):
        return self.reference

    @property
    def account_last4(self) -> str:
        return self.account_number[-4:]
