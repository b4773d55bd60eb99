"""Admin for payouts and the processor's transfer recipients, read-only."""

from django.contrib import admin

from config.admin import ReadOnlyModelAdmin

from .models import Payout, PayoutRecipient


@admin.register(Payout)
class PayoutAdmin(ReadOnlyModelAdmin):
    list_display = (
        "public_id",
        "merchant",
        "amount",
        "status",
        "bank_code",
        "account_last4",
        "created_at",
        "paid_at",
    )
    list_filter = ("status", "processor")
    search_fields = ("public_id", "merchant__public_id", "merchant__email")
    list_select_related = ("merchant",)


@admin.register(PayoutRecipient)
class PayoutRecipientAdmin(ReadOnlyModelAdmin):
    list_display = ("recipient_code", "processor", "bank_code", "account_number")
