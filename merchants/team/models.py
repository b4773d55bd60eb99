from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from config.api.ids import new_public_id
from config.db.encryption import EncryptedTextField
from config.models import PasswordCredentials, StateMachine

from .roles import Role

# The merchant by its app label, as the audit log's model names it:
# merchants/models.py lists these models for Django, so importing it here
# would make the two modules import each other.
MERCHANT = "merchants.Merchant"


def new_member_id() -> str:
    return new_public_id("mem")


def new_invitation_id() -> str:
    return new_public_id("inv")


class Member(PasswordCredentials, StateMachine):
    """One person's sign-in to a merchant's dashboard and merchant-JWT API.

    `credential_version` moves on with a password change, a role change and a
    removal: JWTs carry the version they were issued under and dashboard
    sessions are stamped with it, so each of these ends them at once."""

    class Status(models.TextChoices):
        ACTIVE = "active"
        REMOVED = "removed"

    TRANSITIONS = {Status.ACTIVE: frozenset({Status.REMOVED})}
    STAMPS = {Status.REMOVED: "removed_at"}

    public_id = models.CharField(max_length=40, unique=True, default=new_member_id)
    merchant = models.ForeignKey(
        MERCHANT, on_delete=models.PROTECT, related_name="members"
    )
    email = models.EmailField(max_length=254)
    password = models.CharField(max_length=128)
    credential_version = models.PositiveIntegerField(default=0)
    role = models.CharField(max_length=16, choices=Role.choices)
    # The most one refund of this member may give back, in kobo (support only;
    # None: the role has no limit). 0 lets a support member refund nothing.
    refund_limit = models.BigIntegerField(null=True, blank=True)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.ACTIVE
    )
    removed_at = models.DateTimeField(null=True, blank=True)
    # Two-factor sign-in (merchants/team/two_factor.py): the TOTP secret, set
    # at enrolment and active once a code confirmed it (`totp_enabled_at`);
    # the time step of the last code accepted, so that no code works twice.
    totp_secret = EncryptedTextField(blank=True)
    totp_enabled_at = models.DateTimeField(null=True, blank=True)
    totp_last_step = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            # One sign-in per address across the service: an e-mail names one
            # person's account (a removed member's address may be invited again).
            models.UniqueConstraint(
                Lower("email"),
                condition=Q(status="active"),
                name="member_active_email_unique_ci",
            ),
            models.CheckConstraint(
                condition=Q(refund_limit__isnull=True) | Q(refund_limit__gte=0),
                name="member_refund_limit_not_negative",
            ),
        ]
        ordering = ["created_at", "id"]

    def __str__(self):
        return f"{self.email} ({self.role} of {self.merchant_id})"

    @property
    def is_active(self) -> bool:
        return self.status == self.Status.ACTIVE

    @property
    def has_two_factor(self) -> bool:
        return self.totp_enabled_at is not None

    @property
    def session_stamp(self) -> str:
        """What a dashboard session is stamped with: a password change, a role
        change or a removal each make it stale."""
        return f"{self.password}:{self.credential_version}:{self.status}"

    @property
    def principal(self):
        """The merchant the API's views act for, carrying this member."""
        merchant = self.merchant
        merchant.member = self
        return merchant


class Invitation(models.Model):
    """An e-mailed link to join a merchant's team with a role: works once, for
    INVITATION_LIFETIME. Only its token's hash is stored."""

    public_id = models.CharField(max_length=40, unique=True, default=new_invitation_id)
    merchant = models.ForeignKey(
        MERCHANT, on_delete=models.PROTECT, related_name="invitations"
    )
    email = models.EmailField(max_length=254)
    role = models.CharField(max_length=16, choices=Role.choices)
    refund_limit = models.BigIntegerField(null=True, blank=True)
    token_hash = models.CharField(max_length=64, unique=True)
    invited_by = models.ForeignKey(
        Member, on_delete=models.PROTECT, related_name="invitations_sent"
    )
    expires_at = models.DateTimeField()
    accepted_at = models.DateTimeField(null=True, blank=True)
    accepted_member = models.OneToOneField(
        Member,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="invitation",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.email} as {self.role} ({self.public_id})"


class BackupCode(models.Model):
    """One of a member's single-use backup codes: only a peppered hash is kept
    (the member saw the code once); `used_at` ends it."""

    member = models.ForeignKey(
        Member, on_delete=models.CASCADE, related_name="backup_codes"
    )
    code_hash = models.CharField(max_length=64)
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["member", "code_hash"], name="backup_code_unique_per_member"
            )
        ]

    def __str__(self):
        return f"backup code of {self.member_id} ({'used' if self.used_at else 'open'})"
