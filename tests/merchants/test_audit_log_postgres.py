"""The audit log on PostgreSQL: the database itself refuses UPDATE and DELETE
of its rows, and the retention job is the one path that removes them."""

from datetime import timedelta

import pytest
import time_machine
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from merchants.audit.actors import SYSTEM
from merchants.audit.models import AuditEntry
from merchants.audit.services import audit_record, audit_retention_run

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _record(merchant) -> AuditEntry:
    return audit_record(merchant=merchant, action="signed_in", actor=SYSTEM)


def _raw(sql: str, params: list) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_a_raw_update_of_an_audit_row_fails(merchant_active):
    entry = _record(merchant_active)

    with pytest.raises(DatabaseError, match="append-only"):
        _raw("UPDATE merchants_auditentry SET action = 'x' WHERE id = %s", [entry.pk])

    entry.refresh_from_db()
    assert entry.action == "signed_in"


def test_a_raw_delete_of_an_audit_row_fails(merchant_active):
    entry = _record(merchant_active)

    with pytest.raises(DatabaseError, match="append-only"):
        _raw("DELETE FROM merchants_auditentry WHERE id = %s", [entry.pk])

    assert AuditEntry.objects.filter(pk=entry.pk).exists()


def test_the_retention_setting_does_not_allow_an_update(merchant_active):
    entry = _record(merchant_active)

    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("SET LOCAL audit.retention = 'on'")
        cursor.execute(
            "UPDATE merchants_auditentry SET action = 'x' WHERE id = %s", [entry.pk]
        )


def test_retention_removes_only_the_rows_past_the_period(merchant_active, settings):
    settings.AUDIT_RETENTION_DAYS = 730
    now = timezone.now()
    with time_machine.travel(now - timedelta(days=731), tick=False):
        old = [_record(merchant_active) for _ in range(3)]
    with time_machine.travel(now - timedelta(days=729), tick=False):
        recent = _record(merchant_active)
    current = _record(merchant_active)

    with time_machine.travel(now, tick=False):
        removed = audit_retention_run()

    assert removed == 3
    left = set(AuditEntry.objects.values_list("pk", flat=True))
    assert left == {recent.pk, current.pk}
    assert not left & {entry.pk for entry in old}
    assert audit_retention_run() == 0


def test_the_daily_purge_runs_the_audit_retention(merchant_active):
    from installments.tasks import purge_records

    with time_machine.travel(timezone.now() - timedelta(days=800), tick=False):
        _record(merchant_active)

    purge_records()

    assert not AuditEntry.objects.exists()
