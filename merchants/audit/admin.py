"""The audit log in the admin: read-only (rows are written by the services and
removed only by the retention job)."""

from django.contrib import admin

from config.admin import ReadOnlyModelAdmin

from .models import AuditEntry


@admin.register(AuditEntry)
class AuditEntryAdmin(ReadOnlyModelAdmin):
    list_display = (
        "created_at",
        "merchant",
        "action",
        "actor_kind",
        "actor_id",
        "object_type",
        "object_id",
        "ip",
    )
    list_filter = ("action", "actor_kind")
    search_fields = ("public_id", "merchant__public_id", "actor_id", "actor_label")
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-id")
