"""The one read-only admin mixin: rows that change only through their services
(sessions, plans, events, ledgers, histories) are shown to staff, never added,
changed or deleted there."""

from django.contrib import admin


class ReadOnlyAdminMixin:
    """Mix into a `ModelAdmin` or an inline, before it: `class PlanAdmin(
    ReadOnlyAdminMixin, admin.ModelAdmin)`. Admin actions still run (they call
    services)."""

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


class ReadOnlyModelAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """A read-only `ModelAdmin` of a long table of records, 50 rows a page."""

    list_per_page = 50
