"""Events with their delivery state and attempts; a replay action (DESIGN §12)."""

import json

from django.contrib import admin, messages

from config.admin import ReadOnlyAdminMixin
from merchants.audit.actors import actor_from_request

from . import services
from .models import DeliveryAttempt, Event


class DeliveryAttemptInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = DeliveryAttempt
    fields = (
        "public_id",
        "attempt",
        "trigger",
        "attempted_at",
        "delivered",
        "status_code",
        "error",
        "latency_ms",
        "next_attempt_at",
        "url",
    )
    readonly_fields = fields
    ordering = ("attempted_at", "id")


@admin.action(description="Replay the selected events now")
def replay(modeladmin, request, queryset):
    delivered = failed = 0
    for event in queryset:
        outcome = services.event_replay(
            event=event, actor=actor_from_request(request)
        ).outcome
        if outcome.delivered:
            delivered += 1
        else:
            failed += 1
            modeladmin.message_user(
                request, f"{event.public_id}: {outcome.error}", messages.WARNING
            )
    modeladmin.message_user(
        request,
        f"Replayed {delivered + failed} event(s): {delivered} delivered, "
        f"{failed} failed.",
        messages.SUCCESS if not failed else messages.WARNING,
    )


@admin.register(Event)
class EventAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Events are immutable; viewing is enough to run the replay action."""

    list_display = (
        "public_id",
        "event_type",
        "merchant",
        "delivery_status",
        "attempt_count",
        "next_attempt_at",
        "created_at",
    )
    list_filter = ("delivery__status", "event_type")
    search_fields = ("public_id", "merchant__public_id", "merchant__email")
    list_select_related = ("merchant", "delivery")
    fields = (
        "public_id",
        "event_type",
        "merchant",
        "created_at",
        "delivery_status",
        "attempt_count",
        "next_attempt_at",
        "envelope",
    )
    readonly_fields = fields
    inlines = [DeliveryAttemptInline]
    actions = [replay]
    ordering = ("-created_at", "-id")
    list_per_page = 50

    @admin.display(description="status", ordering="delivery__status")
    def delivery_status(self, event):
        return event.delivery.status

    @admin.display(description="attempts")
    def attempt_count(self, event):
        return event.delivery.attempts

    @admin.display(description="next attempt", ordering="delivery__next_attempt_at")
    def next_attempt_at(self, event):
        return event.delivery.next_attempt_at

    @admin.display(description="body as sent")
    def envelope(self, event):
        return json.dumps(event.envelope, indent=2)
