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
        "shown_body",
        "status",
        "provider_id",
        "error",
        "created_at",
        "sent_at",
        "failed_at",
    )
    readonly_fields = fields

    @admin.display(description="body")
    def shown_body(self, message: Message) -> str:
        """A reset link or a sign-in code is a credential for a while: staff
        see that it was sent, not what it was."""
        if message.kind in Message.SECRET_KINDS:
            return "(holds a one-time link or code: not shown)"
        return message.body

    date_hierarchy = "created_at"
