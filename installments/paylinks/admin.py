"""Staff see pay links (never their tokens) and may revoke them."""

from django.contrib import admin, messages

from config.admin import ReadOnlyAdminMixin

from .models import PayLink
from .services import pay_links_revoke


@admin.register(PayLink)
class PayLinkAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "public_id",
        "plan",
        "created_by",
        "created_at",
        "expires_at",
        "revoked_at",
        "last_used_at",
    )
    list_filter = ("created_by",)
    search_fields = ("public_id", "plan__public_id", "plan__order_reference")
    list_select_related = ("plan",)
    fields = (
        "public_id",
        "plan",
        "created_by",
        "source",
        "created_at",
        "expires_at",
        "revoked_at",
        "last_used_at",
    )
    readonly_fields = fields
    actions = ["revoke"]

    @admin.action(description="Revoke the selected pay links")
    def revoke(self, request, queryset):
        revoked = pay_links_revoke(links=queryset)
        self.message_user(request, f"{revoked} pay link(s) revoked.", messages.SUCCESS)
