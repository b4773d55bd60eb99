import hashlib

from django.contrib.auth.hashers import check_password, make_password
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from config.api.ids import new_public_id

API_KEY_PREFIX = "service_live_sk_"


def new_merchant_id() -> str:
    return new_public_id("mer")


class Merchant(models.Model):
    """A business selling on installments. Not a Django user: merchants, customers
    and staff are separate kinds of account (DESIGN section 4)."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACTIVE = "active"
        SUSPENDED = "suspended"

    class RatePlan(models.TextChoices):
        SANDBOX = "sandbox"
        PRODUCTION = "production"

    public_id = models.CharField(max_length=40, unique=True, default=new_merchant_id)
    email = models.EmailField(max_length=254)
    password = models.CharField(max_length=128)
    business_name = models.CharField(max_length=200)
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
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    # DRF treats the authenticated principal as a user.
    is_authenticated = True
    principal_role = "merchant"

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("email"), name="merchant_email_unique_ci"),
        ]
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.business_name} <{self.email}> ({self.public_id})"

    def set_password(self, raw_password: str) -> None:
        self.password = make_password(raw_password)

    def check_password(self, raw_password: str) -> bool:
        return check_password(raw_password, self.password)

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE

    @property
    def rate_limit_per_minute(self) -> int:
        from django.conf import settings

        return settings.RATE_LIMITS[self.rate_plan]


def hash_api_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


class ApiKey(models.Model):
    """A merchant's secret key, stored only as its SHA-256 hash.

    At most one unrevoked key per merchant, enforced by the database; revoked keys
    stay as the history (endpoint 8).
    """

    merchant = models.ForeignKey(
        Merchant, on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(max_length=100, blank=True)
    key_hash = models.CharField(max_length=64, unique=True)
    # The first characters of the secret part, for recognising a key in a list.
    display_prefix = models.CharField(max_length=8)
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
        return f"{self.masked_prefix} ({'revoked' if self.revoked_at else 'live'})"

    @property
    def masked_prefix(self) -> str:
        return f"{API_KEY_PREFIX}{self.display_prefix}..."
