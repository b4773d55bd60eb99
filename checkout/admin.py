from django.contrib import admin

from config.admin import ReadOnlyAdminMixin

from .models import CheckoutSession, IdempotencyRecord, PaymentLink


@admin.register(CheckoutSession)
class CheckoutSessionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Read-only: sessions change only through the API."""

    list_display = (
        "token",
        "merchant",
        "order_reference",
        "plan",
        "amount",
        "currency",
        "status",
        "created_at",
        "expires_at",
    )
    list_filter = ("status", "currency")
    search_fields = ("token", "order_reference", "merchant__public_id")
    list_select_related = ("merchant", "plan")


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("key", "merchant", "session", "response_status", "expires_at")
    search_fields = ("key", "merchant__public_id", "session__token")
    list_select_related = ("merchant", "session")


@admin.register(PaymentLink)
class PaymentLinkAdmin(admin.ModelAdmin):
    """Merchants manage their links through the API; staff may switch one off."""

    list_display = (
        "public_id",
        "slug",
        "merchant",
        "title",
        "amount",
        "currency",
        "is_active",
        "created_at",
    )
    list_filter = ("is_active", "currency")
    search_fields = ("public_id", "slug", "title", "merchant__public_id")
    list_select_related = ("merchant",)
    fields = (
        "public_id",
        "slug",
        "merchant",
        "title",
        "description",
        "amount",
        "currency",
        "redirect_url",
        "is_active",
        "created_at",
        "updated_at",
    )
    readonly_fields = tuple(field for field in fields if field != "is_active")

    def has_add_permission(self, request):
        return False
