"""The record of each message sent (or tried) to a customer, or to a merchant
about one of its plans: reminders, receipts, and what a collection did."""

from django.db import models
from django.utils import timezone

from config.models import StateMachine


class Message(StateMachine):
    """One message on one channel. The row is inserted (`sending`) before the
    message leaves, under the unique (kind, subject, channel): whoever inserts
    it sends it, anyone else finds it taken. A sender holds a `sending` row
    until `lease_expires_at`; a row its sender did not record as sent or failed
    by then is taken again by the sweep (services.messages_send_due), at most
    `MAX_ATTEMPTS` times. `subject` is what the message is
    about: the installment's id (reminder), the collection's ledger reference
    (its receipt), the refund's id (its receipt), the installment's attempt
    `<installment id>_a<attempt>` (the request to add a payment method after a
    hard decline, the failed attempt's notice, a manual plan's payment due
    notice, the default's notices: once per attempt), the partial debit's
    reference (what it collected), the pay link's id (a new link the customer
    asked for), the customer's id and the link's mark `<customer id>_<mark>` (a
    password-reset link), the code's row `sc_<id>` (a one-time sign-in code),
    the change a notice of change tells of (DESIGN section 18): a merchant's
    reschedule `rs_<id>` or a refund's id (the schedule changed), the plan's
    id (cancelled by its merchant), a merchant's resumption after a dispute
    `<dispute id>_resume`; to the merchant, a dispute's id (it opened) and
    `<dispute id>_r<n>` (the processor's n-th reminder).
    Each row is to a customer or, for the merchant's notices of a default or
    a dispute, to a merchant.

    A message that carries a pay link names it (`pay_link`); its body holds
    `outgoing.PAY_LINK` where the link's URL goes when it is sent, never the
    link's token. An agreement's e-mail names the agreement (`agreement`) and
    carries its stored PDF as an attachment. A reset link's or a sign-in code's
    body holds the link or the code (the sweep sends the body again as it is):
    it works for an hour or ten minutes, once, and the admin shows it masked."""

    class Kind(models.TextChoices):
        REMINDER = "reminder"
        RECEIPT_COLLECTION = "receipt_collection"
        RECEIPT_REFUND = "receipt_refund"
        ACTION_REQUIRED = "action_required"
        COLLECTION_FAILED = "collection_failed"  # and tried again
        PARTIALLY_COLLECTED = "partially_collected"
        PLAN_DEFAULTED = "plan_defaulted"
        PLAN_DEFAULTED_MERCHANT = "plan_defaulted_merchant"
        PASSWORD_RESET = "password_reset"
        SIGN_IN_CODE = "sign_in_code"
        # A manual plan's installment the customer pays (DESIGN section 17).
        PAYMENT_DUE = "payment_due"
        PAY_LINK = "pay_link"  # a new pay link the customer asked for
        # The plan's agreement (DESIGN section 18), its PDF attached.
        AGREEMENT = "agreement"
        # Notices of change (DESIGN section 18): the merchant moved a date or
        # refunded off what is owed; the merchant cancelled the plan.
        SCHEDULE_CHANGED = "schedule_changed"
        PLAN_CANCELLED = "plan_cancelled"
        # To the merchant (DESIGN section 19): a dispute opened, and each of
        # the processor's reminders of it.
        DISPUTE_OPENED = "dispute_opened"
        DISPUTE_REMINDER = "dispute_reminder"

    # Kinds whose body holds a credential (a reset link, a sign-in code).
    SECRET_KINDS = frozenset({Kind.PASSWORD_RESET, Kind.SIGN_IN_CODE})

    class Channel(models.TextChoices):
        EMAIL = "email"
        SMS = "sms"

    class Status(models.TextChoices):
        SENDING = "sending"
        SENT = "sent"
        FAILED = "failed"

    TRANSITIONS = {Status.SENDING: frozenset({Status.SENT, Status.FAILED})}
    STAMPS = {Status.SENT: "sent_at", Status.FAILED: "failed_at"}

    kind = models.CharField(max_length=24, choices=Kind.choices)
    subject = models.CharField(max_length=120)
    channel = models.CharField(max_length=8, choices=Channel.choices)
    # Whom it went to: a customer, or a merchant (never both).
    customer = models.ForeignKey(
        "payments.Customer",
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    merchant = models.ForeignKey(
        "merchants.Merchant",
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    # The e-mail address or E.164 number it went to, and what it said.
    recipient = models.CharField(max_length=254)
    title = models.CharField(max_length=255, blank=True)  # the e-mail's subject
    body = models.TextField()
    pay_link = models.ForeignKey(
        "installments.PayLink",
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    # The agreement whose PDF the e-mail carries (`agreement-<plan id>.pdf`).
    agreement = models.ForeignKey(
        "installments.Agreement",
        on_delete=models.PROTECT,
        related_name="+",
        null=True,
        blank=True,
    )
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.SENDING
    )
    status_changed_at = models.DateTimeField(default=timezone.now)
    # The run that inserted the row: it finds its own rows by this token after
    # an insert that skipped the rows another run holds.
    claim = models.UUIDField(db_index=True)
    # How many senders took the row, and until when the last one holds it
    # (while `sending`; None once sent or failed).
    attempts = models.PositiveSmallIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    provider_id = models.CharField(max_length=100, blank=True)
    error = models.CharField(max_length=255, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "subject", "channel"], name="message_once_per_channel"
            ),
            models.CheckConstraint(
                condition=models.Q(customer__isnull=False, merchant__isnull=True)
                | models.Q(customer__isnull=True, merchant__isnull=False),
                name="message_to_customer_or_merchant",
            ),
        ]
        indexes = [
            models.Index(fields=["customer", "created_at"]),
            # The sweep's and /metrics' read: the few rows still `sending`.
            models.Index(
                fields=["lease_expires_at"],
                condition=models.Q(status="sending"),
                name="message_sending_lease",
            ),
        ]

    def __str__(self):
        return f"{self.kind} {self.subject} by {self.channel} ({self.status})"
