"""State of the sandbox processor (DESIGN section 9), kept in the database so that
every web process and worker sees the same simulated processor."""

from django.db import models

from config.models import StateMachine


class SandboxAuthorization(models.Model):
    """A reusable authorization the sandbox issued (card or bank account)."""

    class Behaviour(models.TextChoices):
        SUCCEEDS = "succeeds"
        INSUFFICIENT_FUNDS = "insufficient_funds"
        # Charges succeed; a refund of one of them fails.
        REFUNDS_FAIL = "refunds_fail"
        # Only ever has part of the money: full charges fail insufficient_funds,
        # a partial debit collects a fixed share (DESIGN section 15).
        PARTIAL_FUNDS = "partial_funds"
        # An installment's attempts 1 and 2 fail for want of funds; the third
        # succeeds (read from the attempt number in the charge's reference).
        FAILS_TWICE = "fails_twice"
        # Charges succeed; each is disputed by the customer's bank a minute
        # later (DESIGN section 19).
        DISPUTED = "disputed"

    authorization_code = models.CharField(max_length=64, unique=True)
    channel = models.CharField(max_length=8)  # card or bank
    email = models.EmailField(max_length=254)
    signature = models.CharField(max_length=64, blank=True)
    brand = models.CharField(max_length=32, blank=True)
    last4 = models.CharField(max_length=4)
    exp_month = models.CharField(max_length=2, blank=True)
    exp_year = models.CharField(max_length=4, blank=True)
    bank_code = models.CharField(max_length=16, blank=True)
    account_number = models.CharField(max_length=10, blank=True)
    behaviour = models.CharField(
        max_length=32, choices=Behaviour.choices, default=Behaviour.SUCCEEDS
    )
    # False for the one-off authorization of a bank charge that cannot be
    # charged again (docs/sandbox.md: accounts ending in 4).
    reusable = models.BooleanField(default=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.channel} ••••{self.last4} ({self.behaviour})"


class SandboxTransaction(StateMachine):
    """One charge attempt at the sandbox: a row per reference, so tests and
    later issues can count exactly how often the processor was asked to charge."""

    class Status(models.TextChoices):
        PENDING = "pending"
        SUCCESS = "success"
        FAILED = "failed"
        # A bank transfer or USSD charge ended before the customer paid it.
        ABANDONED = "abandoned"

    # A saved-method charge, or a bank charge refused at once, is written with
    # its outcome.
    INITIAL = frozenset({Status.SUCCESS, Status.FAILED})
    TRANSITIONS = {
        Status.PENDING: frozenset({Status.SUCCESS, Status.FAILED, Status.ABANDONED})
    }

    class Kind(models.TextChoices):
        CARD_CHECKOUT = "card_checkout"  # initialize -> authorize page
        BANK_CHARGE = "bank_charge"  # Charge API with a bank account
        AUTHORIZATION_CHARGE = "authorization_charge"  # charge_authorization
        # customer/authorization/initialize -> consent page (no money moves)
        DIRECT_DEBIT = "direct_debit"
        # A one-off charge the customer pays by bank transfer or USSD
        # (`charge_offline`): pending until the sandbox's complete call.
        OFFLINE_CHARGE = "offline_charge"

    reference = models.CharField(max_length=100, unique=True)
    kind = models.CharField(max_length=32, choices=Kind.choices)
    email = models.EmailField(max_length=254)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    # Bank charges also carry `step`.
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    step = models.CharField(max_length=32, blank=True)
    gateway_response = models.CharField(max_length=255, blank=True)
    callback_url = models.URLField(max_length=2000, blank=True)
    bank_code = models.CharField(max_length=16, blank=True)
    account_number = models.CharField(max_length=10, blank=True)
    card_last4 = models.CharField(max_length=4, blank=True)
    # Offline charges: the PayChannel (bank_transfer or ussd) and when the
    # account or code stops taking the payment; `bank_code` holds the USSD
    # code's bank (`737`), `account_number` the fake account of a transfer.
    channel = models.CharField(max_length=16, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    authorization = models.ForeignKey(
        SandboxAuthorization,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="transactions",
    )
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self):
        return f"{self.kind} {self.reference} {self.status}"


class SandboxRefund(StateMachine):
    """A refund the sandbox was asked for. One asked under a reference of the
    service (`merchant_note`) is `pending` until the settlement pass makes it
    `processed` (or `failed` at once, for a charge of the refunds-fail card);
    a verification charge's refund (or one asked without a reference) is
    `processed` at once.
    `announced_at`: when the pass sent its processor event (`refund.processed`,
    `refund.failed`), as Paystack's webhook would be."""

    class Status(models.TextChoices):
        PENDING = "pending"
        PROCESSED = "processed"
        FAILED = "failed"

    TRANSITIONS = {Status.PENDING: frozenset({Status.PROCESSED})}
    # A verification charge's refund (or one without a reference): processed
    # at once (the default); else pending, or failed at once for the
    # refunds-fail card.
    INITIAL = frozenset({Status.PENDING, Status.FAILED})

    transaction = models.ForeignKey(
        SandboxTransaction, on_delete=models.PROTECT, related_name="refunds"
    )
    amount = models.BigIntegerField()
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PROCESSED
    )
    merchant_note = models.CharField(max_length=255, blank=True)
    announced_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"refund {self.pk} of {self.transaction.reference}"


class SandboxRecipient(models.Model):
    recipient_code = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=200)
    bank_code = models.CharField(max_length=16)
    account_number = models.CharField(max_length=10)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["bank_code", "account_number"],
                name="sandbox_recipient_one_per_account",
            )
        ]

    def __str__(self):
        return self.recipient_code


class SandboxTransfer(StateMachine):
    """A transfer the sandbox was asked for; it settles when first verified."""

    class Status(models.TextChoices):
        PENDING = "pending"
        SUCCESS = "success"
        FAILED = "failed"

    TRANSITIONS = {Status.PENDING: frozenset({Status.SUCCESS, Status.FAILED})}

    reference = models.CharField(max_length=100, unique=True)
    transfer_code = models.CharField(max_length=64, unique=True)
    recipient = models.ForeignKey(SandboxRecipient, on_delete=models.PROTECT)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, default="NGN")
    reason = models.CharField(max_length=255, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    failure_reason = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"transfer {self.reference} {self.status}"


class SandboxDispute(StateMachine):
    """A dispute the sandbox opened on one of its charges (DESIGN section 19):
    `awaiting-merchant-feedback` until the merchant answers
    (`awaiting-bank-feedback`) or accepts, then `resolved` by the sandbox's
    resolve call (or the acceptance). `created_announced_at` and
    `resolved_announced_at`: when the sandbox sent `charge.dispute.create` and
    `charge.dispute.resolve`, as Paystack's webhook would."""

    class Status(models.TextChoices):
        # As Paystack names them (processors/dispute_types.py DisputeState).
        AWAITING_MERCHANT = "awaiting-merchant-feedback"
        AWAITING_BANK = "awaiting-bank-feedback"
        RESOLVED = "resolved"

    TRANSITIONS = {
        Status.AWAITING_MERCHANT: frozenset({Status.AWAITING_BANK, Status.RESOLVED}),
        Status.AWAITING_BANK: frozenset({Status.RESOLVED}),
    }

    dispute_id = models.CharField(max_length=40, unique=True)
    transaction = models.ForeignKey(
        SandboxTransaction, on_delete=models.PROTECT, related_name="disputes"
    )
    amount = models.BigIntegerField()
    status = models.CharField(
        max_length=32, choices=Status.choices, default=Status.AWAITING_MERCHANT
    )
    resolution = models.CharField(max_length=32, blank=True)
    category = models.CharField(max_length=16, default="chargeback")
    reason = models.CharField(max_length=255, blank=True)
    due_at = models.DateTimeField()
    # The merchant's last answer: the evidence fields and the files' names,
    # types, sizes and SHA-256 (the content is not kept).
    evidence = models.JSONField(default=dict, blank=True)
    created_announced_at = models.DateTimeField(null=True, blank=True)
    resolved_announced_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"dispute {self.dispute_id} of {self.transaction.reference}"
