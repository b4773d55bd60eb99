from django.contrib import admin

from .models import CheckoutSession, IdempotencyRecord


@admin.register(CheckoutSession)
class CheckoutSessionAdmin(admin.ModelAdmin):
    """Read-only: sessions change only through the API."""

    list_display = (
        "token",
        "merchant",
        "order_reference",
        "amount",
        "currency",
        "status",
        "created_at",
        "expires_at",
    )
    list_filter = ("status", "currency")
    search_fields = ("token", "order_reference", "merchant__public_id")
    list_select_related = ("merchant",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(admin.ModelAdmin):
    list_display = ("key", "merchant", "session", "response_status", "expires_at")
    search_fields = ("key", "merchant__public_id", "session__token")
    list_select_related = ("merchant", "session")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
