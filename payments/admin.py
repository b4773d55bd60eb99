"""Admin for customers, their payment methods, processor records and callbacks.

No secrets are shown: authorization codes appear masked (`AUTH_…1a2b`), password
hashes are excluded, and processor records are read-only.
"""

import re

from django.contrib import admin, messages

from .models import (
    BankMandate,
    CardSetup,
    Customer,
    InboundRequest,
    LedgerLine,
    LedgerTransaction,
    PaymentMethod,
    Payout,
    PayoutRecipient,
    ProcessorCharge,
    ProcessorEvent,
    ProcessorRefund,
    SandboxAuthorization,
    SandboxTransaction,
)

# Processor callbacks name reusable authorization codes (a card's token, a bank
# mandate): their bodies are shown with each code masked like the payment
# methods' own (`AUTH_…1a2b`).
_AUTHORIZATION_CODE = re.compile(r'("authorization_code"\s*:\s*")([^"\\]*)(")')


def _mask_code(code: str) -> str:
    return f"{code[:5]}…{code[-4:]}" if len(code) > 12 else "…"


def masked_authorization_codes(text: str) -> str:
    return _AUTHORIZATION_CODE.sub(
        lambda match: f"{match[1]}{_mask_code(match[2])}{match[3]}", text
    )


class ReadOnlyAdmin(admin.ModelAdmin):
    list_per_page = 50

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class PaymentMethodInline(admin.TabularInline):
    model = PaymentMethod
    fields = ("public_id", "type", "label", "status", "is_default", "created_at")
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
class PaymentMethodAdmin(ReadOnlyAdmin):
    list_display = (
        "public_id",
        "customer",
        "type",
        "label",
        "status",
        "is_default",
        "processor",
        "created_at",
    )
    list_filter = ("type", "status", "is_default", "processor")
    search_fields = ("public_id", "customer__public_id", "customer__email", "label")
    list_select_related = ("customer",)
    fields = (
        "public_id",
        "customer",
        "type",
        "status",
        "is_default",
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
class CardSetupAdmin(ReadOnlyAdmin):
    list_display = ("reference", "customer", "status", "processor", "created_at")
    list_filter = ("status", "processor")
    search_fields = ("reference", "customer__email", "customer__public_id")


@admin.register(BankMandate)
class BankMandateAdmin(ReadOnlyAdmin):
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


class ProcessorRefundInline(admin.StackedInline):
    model = ProcessorRefund
    readonly_fields = ("refund_id", "amount", "currency", "status", "created_at")
    fields = readonly_fields
    can_delete = False
    extra = 0


@admin.register(ProcessorCharge)
class ProcessorChargeAdmin(ReadOnlyAdmin):
    list_display = (
        "reference",
        "customer",
        "purpose",
        "amount",
        "currency",
        "status",
        "created_at",
    )
    list_filter = ("purpose", "status", "processor")
    search_fields = ("reference", "customer__email", "customer__public_id")
    inlines = [ProcessorRefundInline]


@admin.register(InboundRequest)
class InboundRequestAdmin(ReadOnlyAdmin):
    list_display = (
        "endpoint",
        "event",
        "signature_valid",
        "received_at",
        "processed_at",
        "outcome",
        "error",
    )
    list_filter = ("endpoint", "signature_valid", "event")
    fields = (
        "endpoint",
        "event",
        "signature_valid",
        "received_at",
        "processed_at",
        "outcome",
        "error",
        "headers",
        "body_size",
        "body_sha256",
        "raw_body",
    )
    readonly_fields = fields

    @admin.display(description="Body (authorization codes masked)")
    def raw_body(self, obj):
        return masked_authorization_codes(
            bytes(obj.body).decode("utf-8", errors="replace")
        )


@admin.register(ProcessorEvent)
class ProcessorEventAdmin(ReadOnlyAdmin):
    list_display = ("kind", "event", "source", "note", "handled_at")
    list_filter = ("kind", "source")
    search_fields = ("key",)


class LedgerLineInline(admin.TabularInline):
    model = LedgerLine
    fields = ("account", "amount", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    """The journal, read-only: corrections are new transactions, never edits."""

    list_display = (
        "public_id",
        "kind",
        "reference",
        "merchant",
        "amount",
        "fee",
        "net",
        "created_at",
    )
    list_filter = ("kind",)
    search_fields = ("public_id", "reference", "merchant__public_id")
    list_select_related = ("merchant",)
    inlines = [LedgerLineInline]


@admin.register(Payout)
class PayoutAdmin(ReadOnlyAdmin):
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
class PayoutRecipientAdmin(ReadOnlyAdmin):
    list_display = ("recipient_code", "processor", "bank_code", "account_number")


@admin.action(description="Revoke (the bank or issuer withdraws it)")
def revoke_sandbox_authorization(modeladmin, request, queryset):
    from .processors.sandbox import SandboxProcessor

    sandbox = SandboxProcessor()
    revoked = sum(
        sandbox.revoke_authorization(authorization_code=code)
        for code in queryset.values_list("authorization_code", flat=True)
    )
    modeladmin.message_user(
        request,
        f"Revoked {revoked} sandbox authorization(s); the nightly poll (or the next "
        "charge) deactivates the payment methods.",
        messages.SUCCESS,
    )


@admin.register(SandboxAuthorization)
class SandboxAuthorizationAdmin(ReadOnlyAdmin):
    list_display = ("code", "channel", "last4", "behaviour", "revoked_at")
    list_filter = ("channel", "behaviour")
    actions = [revoke_sandbox_authorization]
    exclude = ("authorization_code",)

    def has_change_permission(self, request, obj=None):
        # Needed for the revoke action; the change form itself shows no inputs.
        return True

    def get_readonly_fields(self, request, obj=None):
        fields = [f.name for f in self.model._meta.fields if f.name not in self.exclude]
        return [*fields, "code"]

    @admin.display(description="Authorization code")
    def code(self, obj):
        code = obj.authorization_code
        return f"{code[:5]}…{code[-4:]}"


@admin.register(SandboxTransaction)
class SandboxTransactionAdmin(ReadOnlyAdmin):
    list_display = ("reference", "kind", "amount", "status", "step", "created_at")
    list_filter = ("kind", "status")
    search_fields = ("reference", "email")
