"""Reading the audit log: one merchant's rows, newest first, filtered."""

from datetime import datetime

from django.db.models import Q

from .models import AuditEntry


def audit_entries(
    merchant,
    *,
    action: str | None = None,
    actor: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
):
    """`actor` matches the actor's id (a member's id, a key's prefix, a staff
    username) or, case-insensitively, its label (an e-mail)."""
    rows = AuditEntry.objects.filter(merchant=merchant).select_related("merchant")
    if action:
        rows = rows.filter(action=action)
    if actor:
        rows = rows.filter(Q(actor_id=actor) | Q(actor_label__iexact=actor))
    if since:
        rows = rows.filter(created_at__gte=since)
    if until:
        rows = rows.filter(created_at__lt=until)
    return rows.order_by("-created_at", "-id")
