"""Writing the audit log, and the one path that removes rows from it."""

import json
from datetime import timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import connection, transaction
from django.utils import timezone

from .actions import ACTIONS, SECRET_CHANGED, is_secret
from .actors import Actor, request_ip, request_user_agent
from .models import RETENTION_SETTING, AuditEntry

if TYPE_CHECKING:
    from ..models import Merchant

RETENTION_CHUNK = 1000


def _json(value):
    """A value as JSON stores it (dates and decimals as text)."""
    return json.loads(json.dumps(value, cls=DjangoJSONEncoder))


def changes_between(instance, values: dict) -> dict:
    """{field: [before, after]} of the `values` that differ from `instance`'s."""
    return {
        name: [getattr(instance, name), value]
        for name, value in values.items()
        if getattr(instance, name) != value
    }


def _safe(changes: dict | None) -> dict:
    """The changes as stored: a secret's values never, only that it changed."""
    return {
        name: SECRET_CHANGED if is_secret(name) else _json(list(pair))
        for name, pair in (changes or {}).items()
    }


def audit_record(
    *,
    merchant: "Merchant",
    action: str,
    actor: Actor,
    object_type: str = "",
    object_id: str = "",
    changes: dict | None = None,
    request=None,
) -> AuditEntry:
    """One row of the log, in the caller's transaction (if any). `request`,
    when given, says where from instead of the actor."""
    if action not in ACTIONS:
        raise ValueError(f"not an audit action: {action!r}")
    ip, user_agent = actor.ip, actor.user_agent
    if request is not None:
        ip, user_agent = request_ip(request), request_user_agent(request)
    return AuditEntry.objects.create(
        # The side's log (DESIGN section 21): what is done on the test side
        # (a test refund, a test key) is in the test side's log, which the
        # dashboard's test mode and a test key read; the live log holds only
        # live work and the account's own (the team, sign-in, approval).
        merchant=merchant,
        actor_kind=actor.kind,
        actor_id=actor.id,
        actor_label=actor.label,
        action=action,
        object_type=object_type,
        object_id=object_id,
        changes=_safe(changes),
        ip=ip,
        user_agent=user_agent,
    )


def _allow_removal() -> None:
    """Let this transaction delete audit rows (the trigger reads the setting)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config(%s, 'on', true)", [RETENTION_SETTING])


def audit_retention_run(*, now=None) -> int:
    """Delete the rows older than AUDIT_RETENTION_DAYS, a chunk per transaction
    (a crash keeps what a rerun finds again). Returns how many went."""
    cutoff = (now or timezone.now()) - timedelta(days=settings.AUDIT_RETENTION_DAYS)
    removed = 0
    while True:
        with transaction.atomic(durable=True):
            _allow_removal()
            pks = list(
                AuditEntry.objects.filter(created_at__lt=cutoff)
                .order_by("pk")
                .values_list("pk", flat=True)[:RETENTION_CHUNK]
            )
            if not pks:
                return removed
            removed += AuditEntry.objects.filter(pk__in=pks).retention_delete()
