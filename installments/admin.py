"""Admin for payment plans: read-only (plans change only through their services),
installments and status histories inline."""

from django.contrib import admin

from .models import (
    DepositAttempt,
    Installment,
    InstallmentStatusChange,
    PaymentPlan,
    PaymentPlanStatusChange,
)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class InstallmentInline(ReadOnlyInline):
    model = Installment
    fields = (
        "public_id",
        "sequence",
        "amount",
        "due_date",
        "status",
        "attempts",
        "next_attempt_at",
        "last_failure_reason",
        "processor_reference",
        "paid_at",
    )
    readonly_fields = fields


class DepositAttemptInline(ReadOnlyInline):
    model = DepositAttempt
    fields = (
        "number",
        "reference",
        "amount",
        "status",
        "failure_reason",
        "created_at",
        "settled_at",
    )
    readonly_fields = fields


class PlanStatusChangeInline(ReadOnlyInline):
    model = PaymentPlanStatusChange
    fields = ("from_status", "to_status", "changed_at")
    readonly_fields = fields


@admin.register(PaymentPlan)
class PaymentPlanAdmin(admin.ModelAdmin):
    list_display = (
        "public_id",
        "merchant",
        "customer",
        "order_reference",
        "total_amount",
        "deposit_amount",
        "status",
        "created_at",
    )
    list_filter = ("status", "schedule_type")
    search_fields = (
        "public_id",
        "order_reference",
        "merchant__public_id",
        "customer__public_id",
        "customer__email",
    )
    list_select_related = ("merchant", "customer")
    inlines = [InstallmentInline, DepositAttemptInline, PlanStatusChangeInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(InstallmentStatusChange)
class InstallmentStatusChangeAdmin(admin.ModelAdmin):
    list_display = (
        "installment",
        "from_status",
        "to_status",
        "attempt",
        "reason",
        "changed_at",
    )
    search_fields = ("installment__public_id", "installment__plan__public_id")
    list_select_related = ("installment",)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
