"""Staff see every message sent or tried (read-only): to whom, what it said,
when, and why it failed."""

from django.contrib import admin

from config.admin import ReadOnlyAdminMixin

from .models import Message


@admin.register(Message)
class MessageAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "kind",
        "subject",
        "channel",
        "recipient",
        "status",
        "created_at",
        "error",
    )
    list_filter = ("kind", "channel", "status")
    search_fields = (
        "subject",
        "recipient",
        "customer__public_id",
        "customer__email",
        "merchant__public_id",
    )
    list_select_related = ("customer", "merchant")
    fields = (
        "kind",
        "subject",
        "channel",
        "customer",
        "merchant",
        "recipient",
        "title",
        "body",
        "status",
        "provider_id",
        "error",
        "created_at",
        "sent_at",
        "failed_at",
    )
    readonly_fields = fields
    date_hierarchy = "created_at"
