"""Admin for what moved through the processor, the processor's callbacks and the
sandbox processor. Read-only: these are records of what the processor said.

No secrets are shown: authorization codes in callback bodies appear masked
(`AUTH_…1a2b`).
"""

import re

from django.contrib import admin, messages

from config.admin import ReadOnlyModelAdmin

from .models import (
    InboundRequest,
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


class ProcessorRefundInline(admin.StackedInline):
    model = ProcessorRefund
    readonly_fields = ("refund_id", "amount", "currency", "status", "created_at")
    fields = readonly_fields
    can_delete = False
    extra = 0


@admin.register(ProcessorCharge)
class ProcessorChargeAdmin(ReadOnlyModelAdmin):
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
class InboundRequestAdmin(ReadOnlyModelAdmin):
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
        *list_display,
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
class ProcessorEventAdmin(ReadOnlyModelAdmin):
    list_display = ("kind", "event", "source", "note", "handled_at")
    list_filter = ("kind", "source")
    search_fields = ("key",)


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
class SandboxAuthorizationAdmin(ReadOnlyModelAdmin):
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
class SandboxTransactionAdmin(ReadOnlyModelAdmin):
    list_display = ("reference", "kind", "amount", "status", "step", "created_at")
    list_filter = ("kind", "status")
    search_fields = ("reference", "email")
