"""Staff see disputes read-only (they change only through their services:
the processor's word, the merchant's answer or acceptance)."""

from django.contrib import admin

from config.admin import ReadOnlyModelAdmin

from .models import Dispute


@admin.register(Dispute)
class DisputeAdmin(ReadOnlyModelAdmin):
    list_display = (
        "public_id",
        "merchant",
        "plan",
        "amount",
        "amount_held",
        "status",
        "due_at",
        "created_at",
    )
    list_filter = ("status", "category")
    search_fields = (
        "public_id",
        "processor_dispute_id",
        "collection_reference",
        "plan__public_id",
        "plan__order_reference",
        "merchant__public_id",
    )
    list_select_related = ("merchant", "plan")
    date_hierarchy = "created_at"
