"""Admin for payment plans: read-only (plans change only through their services),
installments and status histories inline."""

from django.contrib import admin

from config.admin import ReadOnlyAdminMixin

# Registers the agreements', the disputes', the reminders' and receipts' admin,
# the pay links', the refunds' and the customer's data actions.
from .agreements import admin as agreements_admin  # noqa: F401
from .deposits.models import DepositAttempt
from .disputes import admin as disputes_admin  # noqa: F401
from .early.models import EarlyPayment
from .notifications import admin as notifications_admin  # noqa: F401
from .paylinks import admin as paylinks_admin  # noqa: F401
from .plans.history import InstallmentStatusChange, PaymentPlanStatusChange
from .plans.models import Installment, PaymentPlan
from .privacy import admin as privacy_admin  # noqa: F401
from .refunds import admin as refunds_admin
from .reschedules.models import Reschedule


class InstallmentInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = Installment
    fields = (
        "public_id",
        "sequence",
        "amount",
        "amount_paid",
        "due_date",
        "status",
        "attempts",
        "next_attempt_at",
        "last_failure_reason",
        "processor_reference",
        "paid_at",
    )
    readonly_fields = fields


class DepositAttemptInline(ReadOnlyAdminMixin, admin.TabularInline):
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


class EarlyPaymentInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = EarlyPayment
    fields = (
        "kind",
        "reference",
        "amount",
        "status",
        "failure_reason",
        "leased_until",
        "created_at",
        "settled_at",
    )
    readonly_fields = fields


class PlanStatusChangeInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = PaymentPlanStatusChange
    fields = ("from_status", "to_status", "changed_at")
    readonly_fields = fields


class RescheduleInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = Reschedule
    fields = ("installment", "from_date", "to_date", "by", "created_at")
    readonly_fields = fields


@admin.register(PaymentPlan)
class PaymentPlanAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
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
    inlines = [
        InstallmentInline,
        DepositAttemptInline,
        EarlyPaymentInline,
        refunds_admin.PlanRefundInline,
        PlanStatusChangeInline,
        RescheduleInline,
    ]


@admin.register(InstallmentStatusChange)
class InstallmentStatusChangeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = (
        "installment",
        "from_status",
        "to_status",
        "attempt",
        "reason",
        "early_payment",
        "changed_at",
    )
    search_fields = ("installment__public_id", "installment__plan__public_id")
    list_select_related = ("installment", "early_payment")
