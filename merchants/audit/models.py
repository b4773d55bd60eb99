"""An audit entry: one action on a merchant's account, written once.

Append-only twice over: `AppendOnly` refuses an update or a delete in Python,
and on PostgreSQL a trigger (migration 0010) refuses UPDATE and DELETE of the
table unless the transaction set `audit.retention` (`services.
audit_retention_run`, the one path that removes rows)."""

from django.db import models

from config.api.ids import new_public_id
from config.models import AppendOnly, AppendOnlyQuerySet

USER_AGENT_MAX_LENGTH = 300
LABEL_MAX_LENGTH = 254
# The transaction-local setting the trigger reads; only the retention job sets it.
RETENTION_SETTING = "audit.retention"


def new_audit_id() -> str:
    return new_public_id("aud")


class AuditEntryQuerySet(AppendOnlyQuerySet):
    def purge(self) -> int:
        raise ValueError(
            "AuditEntry rows go only through audit_retention_run (their own period)"
        )

    purge.alters_data = True
    purge.queryset_only = True

    def retention_delete(self) -> int:
        """Delete these rows for the retention job; the caller's transaction
        has set RETENTION_SETTING (the trigger refuses the DELETE otherwise)."""
        return super(AppendOnlyQuerySet, self).delete()[0]

    retention_delete.alters_data = True
    retention_delete.queryset_only = True


class AuditEntry(AppendOnly):
    class ActorKind(models.TextChoices):
        MEMBER = "member"
        API_KEY = "api_key"
        STAFF = "staff"
        SYSTEM = "system"

    public_id = models.CharField(max_length=40, unique=True, default=new_audit_id)
    merchant = models.ForeignKey(
        "merchants.Merchant", on_delete=models.PROTECT, related_name="+"
    )
    actor_kind = models.CharField(max_length=16, choices=ActorKind.choices)
    # A member's public id, an API key's masked prefix, a staff username.
    actor_id = models.CharField(max_length=150)
    actor_label = models.CharField(max_length=LABEL_MAX_LENGTH, blank=True)
    action = models.CharField(max_length=64)
    object_type = models.CharField(max_length=40, blank=True)
    object_id = models.CharField(max_length=64, blank=True)
    # {field: [before, after]}; a secret's value never: "(changed)".
    changes = models.JSONField(default=dict, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    user_agent = models.CharField(max_length=USER_AGENT_MAX_LENGTH, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AuditEntryQuerySet.as_manager()

    class Meta:
        db_table = "merchants_auditentry"
        indexes = [
            models.Index(
                fields=["merchant", "-created_at"], name="audit_merchant_created"
            ),
            models.Index(fields=["created_at"], name="audit_created"),
        ]
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "audit entries"

    def __str__(self):
        return f"{self.action} by {self.actor_kind}:{self.actor_id} ({self.public_id})"
