"""Admin for customers and their payment methods (DESIGN section 12).

Customers are administered here, with their payment methods inline, because
methods sit above customers. No secrets are shown: authorization codes appear
masked (`AUTH_…1a2b`), password hashes are excluded, and the methods and their
set-up flows are read-only.
"""

from django.contrib import admin

from config.admin import ReadOnlyModelAdmin

from ..customers.models import Customer
from .models import BankMandate, CardSetup, PaymentMethod


class PaymentMethodInline(admin.TabularInline):
    model = PaymentMethod
    fields = (
        "public_id",
        "type",
        "label",
        "status",
        "is_default",
        "livemode",
        "created_at",
    )
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Customer)
class CustomerAdmin(admin.ModelAdmin):
    list_display = (
        "public_id",
        "email",
        "first_name",
        "last_name",
        "score",
        "created_at",
    )
    search_fields = ("public_id", "email", "first_name", "last_name", "phone")
    readonly_fields = ("public_id", "score", "created_at", "updated_at")
    # The credential version moves only with the password (it revokes their JWTs).
    exclude = ("password", "credential_version")
    inlines = [PaymentMethodInline]
    list_per_page = 50


@admin.register(PaymentMethod)
class PaymentMethodAdmin(ReadOnlyModelAdmin):
    list_display = (
        "public_id",
        "customer",
        "type",
        "label",
        "status",
        "is_default",
        "livemode",
        "processor",
        "created_at",
    )
    list_filter = ("type", "status", "is_default", "livemode", "processor")
    search_fields = ("public_id", "customer__public_id", "customer__email", "label")
    list_select_related = ("customer",)
    fields = (
        "public_id",
        "customer",
        "type",
        "status",
        "is_default",
        "livemode",
        "label",
        "last4",
        "brand",
        "exp_month",
        "exp_year",
        "bank_code",
        "bank_name",
        "processor",
        "authorization",
        "created_at",
        "updated_at",
        "revoked_at",
        "revocation_reason",
        "deleted_at",
    )
    readonly_fields = fields

    @admin.display(description="Authorization code")
    def authorization(self, obj):
        return obj.masked_authorization


@admin.register(CardSetup)
class CardSetupAdmin(ReadOnlyModelAdmin):
    list_display = ("reference", "customer", "status", "processor", "created_at")
    list_filter = ("status", "processor")
    search_fields = ("reference", "customer__email", "customer__public_id")


@admin.register(BankMandate)
class BankMandateAdmin(ReadOnlyModelAdmin):
    list_display = (
        "reference",
        "customer",
        "bank_name",
        "status",
        "next_action",
        "otp_failures",
        "created_at",
    )
    list_filter = ("status", "processor")
    search_fields = ("reference", "customer__email", "customer__public_id")
