"""Staff see plan refunds read-only (they change only through their services):
each with its processor refunds (parts), the installments it reduced and the
ledger transactions its parts posted."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.http import urlencode

from config.admin import ReadOnlyAdminMixin, ReadOnlyModelAdmin
from payments.ledger.selectors import transactions_of

from .models import Refund, RefundPart, RefundReduction


class RefundPartInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = RefundPart
    fields = (
        "number",
        "reference",
        "collection_reference",
        "amount",
        "status",
        "processor_refund_id",
        "processor_status",
        "requests",
        "last_requested_at",
        "created_at",
        "processed_at",
        "failed_at",
    )
    readonly_fields = fields


class RefundReductionInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = RefundReduction
    fields = ("installment", "amount", "created_at")
    readonly_fields = fields


class PlanRefundInline(ReadOnlyAdminMixin, admin.TabularInline):
    """A plan's refunds on its page, each linking to its own."""

    model = Refund
    fields = (
        "public_id",
        "amount_requested",
        "amount",
        "amount_reduced",
        "amount_returned",
        "amount_failed",
        "reason",
        "status",
        "created_at",
    )
    readonly_fields = fields
    show_change_link = True


def ledger_transactions_of(refund: Refund):
    """The ledger transactions of a refund's parts (kept by reference, not by
    key: the ledger sits below the plans), in the order they were posted."""
    return transactions_of(resource_type="refund", resource_id=refund.public_id)


@admin.register(Refund)
class RefundAdmin(ReadOnlyModelAdmin):
    list_display = (
        "public_id",
        "plan",
        "merchant",
        "amount_requested",
        "amount",
        "amount_reduced",
        "amount_returned",
        "amount_failed",
        "status",
        "created_at",
    )
    list_filter = ("status",)
    search_fields = (
        "public_id",
        "plan__public_id",
        "plan__order_reference",
        "merchant__public_id",
        "parts__reference",
        "parts__collection_reference",
    )
    list_select_related = ("plan", "merchant")
    fields = (
        "public_id",
        "plan",
        "merchant",
        "amount_requested",
        "amount",
        "amount_reduced",
        "amount_returned",
        "amount_failed",
        "currency",
        "reason",
        "status",
        "created_at",
        "processed_at",
        "failed_at",
        "ledger_transactions",
    )
    readonly_fields = fields
    inlines = [RefundPartInline, RefundReductionInline]

    @admin.display(description="Ledger transactions")
    def ledger_transactions(self, refund: Refund):
        rows = [
            (
                reverse("admin:payments_ledgertransaction_change", args=[txn.pk]),
                txn.public_id,
                txn.get_kind_display(),
                txn.reference,
                txn.amount,
            )
            for txn in ledger_transactions_of(refund)
        ]
        if not rows:
            return "None: no money moved (the refund only reduced installments)."
        listed = format_html_join(
            "",
            '<li><a href="{}">{}</a> {} of part {}: {} kobo</li>',
            rows,
        )
        every = reverse("admin:payments_ledgertransaction_changelist")
        query = urlencode({"resource_type": "refund", "resource_id": refund.public_id})
        return format_html(
            '<ul>{}</ul><a href="{}?{}">All of them in the ledger</a>',
            listed,
            every,
            query,
        )
