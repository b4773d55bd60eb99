import hashlib
import re

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from config.api.ids import new_public_id
from config.db.encryption import EncryptedTextField
from config.models import StateMachine
from config.text import no_control_characters

API_KEY_PREFIX = "service_live_sk_"
TEST_API_KEY_PREFIX = "service_test_sk_"
# A key's prefix by its side (DESIGN section 21): livemode -> prefix.
API_KEY_PREFIXES = {True: API_KEY_PREFIX, False: TEST_API_KEY_PREFIX}
# What a merchant's test side's public id adds to its live one: never shaped
# like a public id, so no URL can name the test side's row; requests reach it
# with a test key or the dashboard's "Test data" switch (merchants.modes).
TEST_SIDE_SUFFIX = "_test"
BUSINESS_NAME_MAX_LENGTH = 200
LEGAL_TEXT_MAX_LENGTH = 200
REFUND_POLICY_MAX_LENGTH = 2000
SUPPORT_PHONE_MAX_LENGTH = 20
FCCPC_NUMBER_MAX_LENGTH = 60
# A phone number as people write one: digits, an optional leading +, spaces,
# hyphens and brackets; 7 to 15 digits (E.164's most).
SUPPORT_PHONE_PATTERN = re.compile(r"\+?[ ()-]*(?:[0-9][ ()-]*){7,15}")
# The merchant settings the key facts box needs (DESIGN section 18); the
# dashboard lists the ones still empty.
LEGAL_SETTINGS = (
    "legal_name",
    "support_email",
    "support_phone",
    "fccpc_registration_number",
    "refund_policy",
)


# The plan rules a merchant sets (DESIGN sections 6, 7, 15, 17): the account's,
# alike on both sides (merchants/account_settings.py).
PLAN_SETTINGS = (
    "allowed_schedule_types",
    "min_installments",
    "max_installments",
    "min_deposit_percent",
    "release_rule",
    "partial_collection_min_percent",
    "customer_reschedules_allowed",
    "reschedule_max_days",
    "manual_collection",
)


SCHEDULE_TYPES = ("monthly", "biweekly", "weekly")
MAX_INSTALLMENTS = 12
# The bounds of the rescheduling settings: a plan has at most 12 installments,
# and a move of more than two months is a new plan, not a late salary.
MAX_RESCHEDULES = 12
MAX_RESCHEDULE_DAYS = 60
RELEASE_RULE_PATTERN = re.compile(
    r"^(on_deposit|on_completion|after_installments:([1-9]|1[0-2]))$"
)


def new_merchant_id() -> str:
    return new_public_id("mer")


def default_schedule_types() -> list[str]:
    return ["monthly"]


class Merchant(StateMachine):
    """A business selling on installments. Not a Django user: merchants, customers
    and staff are separate kinds of account (DESIGN section 4). People sign in as
    its members (merchants.team, DESIGN section 20); `email` is the business's
    address, where the service writes to it."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACTIVE = "active"
        SUSPENDED = "suspended"

    TRANSITIONS = {
        Status.PENDING: frozenset({Status.ACTIVE, Status.SUSPENDED}),
        Status.ACTIVE: frozenset({Status.SUSPENDED}),
        Status.SUSPENDED: frozenset({Status.ACTIVE}),
    }
    # `approved_at` is the first approval's, kept by a later reinstatement
    # (services.merchant_approve).
    STAMPS = {Status.SUSPENDED: "suspended_at"}

    class RatePlan(models.TextChoices):
        SANDBOX = "sandbox"
        PRODUCTION = "production"

    public_id = models.CharField(max_length=40, unique=True, default=new_merchant_id)
    email = models.EmailField(max_length=254)
    # Customers read it in our e-mails and texts: one line, no control characters
    # (config.text); the API, the sign-up form and the admin all refuse the rest.
    business_name = models.CharField(
        max_length=BUSINESS_NAME_MAX_LENGTH, validators=[no_control_characters]
    )
    business_url = models.URLField(max_length=200)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.PENDING
    )
    api_access_enabled = models.BooleanField(default=False)
    rate_plan = models.CharField(
        max_length=16, choices=RatePlan.choices, default=RatePlan.SANDBOX
    )
    approved_at = models.DateTimeField(null=True, blank=True)
    approval_email_sent_at = models.DateTimeField(null=True, blank=True)
    suspended_at = models.DateTimeField(null=True, blank=True)

    # Plan configuration (DESIGN section 6) and release rule (section 7).
    allowed_schedule_types = models.JSONField(default=default_schedule_types)
    min_installments = models.PositiveSmallIntegerField(default=1)
    max_installments = models.PositiveSmallIntegerField(default=6)
    min_deposit_percent = models.PositiveSmallIntegerField(default=0)
    release_rule = models.CharField(max_length=32, default="on_deposit")
    # Partial collection (DESIGN section 15): at the last retry of a card, a
    # soft decline asks for at least this percent of what is owed; None: off.
    partial_collection_min_percent = models.PositiveSmallIntegerField(
        null=True, blank=True
    )
    # Rescheduling (DESIGN section 15): how many due dates a customer may move
    # per plan (0: none), and by how many days at most each time.
    customer_reschedules_allowed = models.PositiveSmallIntegerField(default=1)
    reschedule_max_days = models.PositiveSmallIntegerField(default=14)
    # Manual collection (DESIGN section 17): a customer may finish checkout
    # with the deposit paid by bank transfer or USSD and no card or mandate;
    # such a plan's installments are paid by the customer (the engine sends a
    # "payment due" notice instead of charging). Read once, when a plan is
    # created (`PaymentPlan.collection`): turning it off later changes no plan.
    manual_collection = models.BooleanField(default=False)
    # The owners' switch (DESIGN section 20): every member signs in with a
    # second factor; one without is sent to set it up before anything else.
    require_two_factor = models.BooleanField(default=False)

    # What the key facts box, the agreement and its PDF say of the merchant
    # (DESIGN section 18). Customers read them: one line each (no control
    # characters, the refund policy too: it is shown on one line).
    legal_name = models.CharField(
        max_length=LEGAL_TEXT_MAX_LENGTH, blank=True, validators=[no_control_characters]
    )
    support_email = models.EmailField(max_length=254, blank=True)
    support_phone = models.CharField(
        max_length=SUPPORT_PHONE_MAX_LENGTH,
        blank=True,
        validators=[no_control_characters],
    )
    fccpc_registration_number = models.CharField(
        max_length=FCCPC_NUMBER_MAX_LENGTH,
        blank=True,
        validators=[no_control_characters],
    )
    refund_policy = models.TextField(
        max_length=REFUND_POLICY_MAX_LENGTH,
        blank=True,
        validators=[no_control_characters],
    )

    # Outbound webhooks (DESIGN section 10); the secret is encrypted at rest.
    webhook_url = models.URLField(max_length=500, blank=True)
    webhook_secret = EncryptedTextField(blank=True)

    # Payout bank account (DESIGN section 8); the name is resolved by the processor.
    payout_bank_code = models.CharField(max_length=10, blank=True)
    payout_account_number = models.CharField(max_length=10, blank=True)
    payout_account_name = models.CharField(max_length=200, blank=True)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # Test mode (DESIGN section 21, docs/test-mode.md): a merchant account has
    # two sides. The live side is this row as it always was; the test side is a
    # second row (`livemode` False, `live_account` the live row) that holds
    # every test record, so that every merchant-scoped row's `merchant_id` says
    # which side it is on, and every merchant-scoped index and unique
    # constraint, led by it, keeps the two apart. The test side is active
    # whatever the live side's approval, has API access, and is never listed
    # as a merchant of its own (staff see it inside its account).
    livemode = models.BooleanField(default=True)
    live_account = models.OneToOneField(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="test_side",
    )

    # DRF treats the authenticated principal as a user.
    is_authenticated = True
    principal_role = "merchant"
    # The member a merchant-JWT request or a dashboard session acts as (set by
    # `Member.principal`); None for an API key, which acts as the merchant.
    member = None

    class Meta:
        constraints = [
            models.UniqueConstraint(
                Lower("email"),
                condition=Q(livemode=True),
                name="merchant_email_unique_ci",
            ),
            models.CheckConstraint(
                condition=Q(livemode=True, live_account__isnull=True)
                | Q(livemode=False, live_account__isnull=False),
                name="merchant_test_side_has_live_account",
            ),
            models.CheckConstraint(
                condition=Q(min_installments__gte=1)
                & Q(max_installments__lte=MAX_INSTALLMENTS)
                & Q(min_installments__lte=models.F("max_installments")),
                name="merchant_installment_bounds",
            ),
            models.CheckConstraint(
                condition=Q(min_deposit_percent__lte=100),
                name="merchant_min_deposit_percent_max_100",
            ),
            models.CheckConstraint(
                condition=Q(partial_collection_min_percent__isnull=True)
                | Q(partial_collection_min_percent__range=(1, 99)),
                name="merchant_partial_collection_percent_1_99",
            ),
            models.CheckConstraint(
                condition=Q(customer_reschedules_allowed__lte=MAX_RESCHEDULES)
                & Q(reschedule_max_days__gte=1)
                & Q(reschedule_max_days__lte=MAX_RESCHEDULE_DAYS),
                name="merchant_reschedule_limits",
            ),
        ]
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.business_name} <{self.email}> ({self.public_id})"

    def clean(self):
        errors = {}
        types = self.allowed_schedule_types
        if (
            not isinstance(types, list)
            or not types
            or any(kind not in SCHEDULE_TYPES for kind in types)
        ):
            errors["allowed_schedule_types"] = (
                f"A non-empty list drawn from {', '.join(SCHEDULE_TYPES)}."
            )
        if not RELEASE_RULE_PATTERN.match(self.release_rule or ""):
            errors["release_rule"] = (
                "Use on_deposit, on_completion or after_installments:N (N 1-12)."
            )
        if not 1 <= self.min_installments <= self.max_installments <= MAX_INSTALLMENTS:
            errors["max_installments"] = (
                f"Need 1 <= min_installments <= max_installments <= {MAX_INSTALLMENTS}."
            )
        if self.min_deposit_percent > 90:
            errors["min_deposit_percent"] = "At most 90."
        percent = self.partial_collection_min_percent
        if percent is not None and not 1 <= percent <= 99:
            errors["partial_collection_min_percent"] = "From 1 to 99, or empty (off)."
        if errors:
            raise ValidationError(errors)

    @property
    def is_active(self) -> bool:
        """The live side's approval; the test side is active unless its
        account is suspended."""
        if not self.livemode:
            return self.account.status != self.Status.SUSPENDED
        return self.status == self.Status.ACTIVE

    @property
    def account(self) -> "Merchant":
        """The live row: the account its members, audit log and approval
        belong to, whichever side this row is."""
        return self if self.livemode else self.live_account

    @property
    def api_id(self) -> str:
        """The id merchants know, the same on both sides: the live row's.
        Read off the test side's own id (`<live id>_test`, services.
        test_side_for) rather than its live row, so that every representation
        can show it without loading a second row per record."""
        if self.livemode:
            return self.public_id
        return self.public_id.removesuffix(TEST_SIDE_SUFFIX)

    @property
    def mode(self) -> str:
        return "live" if self.livemode else "test"

    @property
    def release_after_installments(self) -> int | None:
        """N for the rule `after_installments:N`, else None."""
        if self.release_rule.startswith("after_installments:"):
            return int(self.release_rule.split(":", 1)[1])
        return None

    @property
    def rate_limit_per_minute(self) -> int:
        from django.conf import settings

        return settings.RATE_LIMITS[self.rate_plan]


def hash_api_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


class ApiKey(models.Model):
    """A merchant's secret key, stored only as its SHA-256 hash.

    At most one unrevoked key per merchant row, enforced by the database, so one
    live key and one test key (a test key belongs to the test side's row);
    revoked keys stay as the history (endpoint 8).
    """

    merchant = models.ForeignKey(
        Merchant, on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(max_length=100, blank=True)
    key_hash = models.CharField(max_length=64, unique=True)
    # The first characters of the secret part, for recognising a key in a list.
    display_prefix = models.CharField(max_length=8)
    # The key's side (DESIGN section 21), its merchant row's: `service_live_sk_`
    # or `service_test_sk_`. Kept on the key so that the key list and its
    # masked prefix need no join.
    livemode = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    credential_kind = "api_key"

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["merchant"],
                condition=Q(revoked_at__isnull=True),
                name="one_live_api_key_per_merchant",
            )
        ]
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.masked_prefix} ({'revoked' if self.revoked_at else 'in use'})"

    @property
    def masked_prefix(self) -> str:
        return f"{API_KEY_PREFIXES[self.livemode]}{self.display_prefix}..."

    @property
    def mode(self) -> str:
        return "live" if self.livemode else "test"


# The team's and the audit log's models live in their features' subpackages;
# listed here so that Django finds them (code imports them from there).
from .audit.models import AuditEntry  # noqa: E402
from .team.models import BackupCode, Invitation, Member  # noqa: E402

__all__ = ["ApiKey", "AuditEntry", "BackupCode", "Invitation", "Member", "Merchant"]
