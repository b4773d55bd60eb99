"""Admin for the journal, read-only: corrections are new transactions."""

from django.contrib import admin

from config.admin import ReadOnlyModelAdmin

from .models import LedgerBalance, LedgerLine, LedgerTransaction


class LedgerLineInline(admin.TabularInline):
    model = LedgerLine
    fields = ("account", "amount", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyModelAdmin):
    """The journal, read-only: corrections are new transactions, never edits.
    Its side (`livemode`) is shown and filtered on: a test transaction's
    platform lines are on the `test:` accounts."""

    list_display = (
        "public_id",
        "livemode",
        "kind",
        "reference",
        "merchant",
        "amount",
        "fee",
        "net",
        "created_at",
    )
    list_filter = ("livemode", "kind")
    search_fields = ("public_id", "reference", "merchant__public_id")
    list_select_related = ("merchant",)
    inlines = [LedgerLineInline]


@admin.register(LedgerBalance)
class LedgerBalanceAdmin(ReadOnlyModelAdmin):
    """The kept balances the checkpoint writes (balances.py): read-only, and
    `check_ledger` proves each against its lines."""

    list_display = (
        "account",
        "merchant_pk",
        "kind",
        "balance",
        "line_count",
        "through_line_id",
        "updated_at",
    )
    list_filter = ("kind",)
    search_fields = ("account",)
