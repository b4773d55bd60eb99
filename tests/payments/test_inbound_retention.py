"""Stored requests of endpoints 24 and 25 are purged after their retention
(docs/operations.md): handled ones after 90 days, refused ones after 7, and
signed ones not handled yet never."""

from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone
from django_q.models import Schedule
from rest_framework.test import APIClient

from config.schedules import declared
from payments.gateway import tasks
from payments.gateway.services.inbound import inbound_store
from payments.models import InboundRequest, PaymentMethod, ProcessorEvent

from .conftest import add_bank, signed_post

pytestmark = pytest.mark.django_db

INBOUND_RETENTION = timedelta(days=90)
REFUSED_RETENTION = timedelta(days=7)


def test_the_purge_deletes_processed_rows_past_the_retention_and_keeps_the_rest(
    alice,
):
    start = timezone.now()
    bank = add_bank(alice)
    authorization = PaymentMethod.objects.get(public_id=bank["id"]).authorization_code
    handled = signed_post(
        APIClient(),
        "/api/v1/webhooks/payment-gateway",
        {"event": "mandate.cancelled", "data": {"authorization_code": authorization}},
    )
    assert handled.json()["message"] == "handled"
    old_handled = InboundRequest.objects.get()
    # A signed request whose task was lost: stored, never handled.
    waiting = inbound_store(
        endpoint=InboundRequest.Endpoint.PAYSTACK,
        body=b'{"event": "transfer.success", "data": {"reference": "po_lost"}}',
        headers={},
    )
    signed_post(APIClient(), "/api/v1/webhooks/paystack", b"{}", signature=None)
    refused = InboundRequest.objects.get(signature_valid=False)

    with time_machine.travel(start + REFUSED_RETENTION + timedelta(hours=1)):
        assert tasks.purge_inbound_requests() == 1
        recent = signed_post(
            APIClient(),
            "/api/v1/webhooks/payment-gateway",
            {"event": "charge.success", "data": {}},
        )
        assert recent.json()["message"] == "ignored"
    assert not InboundRequest.objects.filter(pk=refused.pk).exists()
    assert InboundRequest.objects.filter(pk=old_handled.pk).exists()

    with time_machine.travel(start + INBOUND_RETENTION + timedelta(hours=1)):
        assert tasks.purge_inbound_requests() == 1

    left = set(InboundRequest.objects.values_list("pk", flat=True))
    assert old_handled.pk not in left
    assert waiting.pk in left
    assert len(left) == 2
    # What made the revocation take effect once outlives the request.
    event = ProcessorEvent.objects.get(kind="revocation")
    assert event.inbound is None


def test_the_purge_keeps_processed_rows_inside_the_retention(db):
    signed_post(
        APIClient(),
        "/api/v1/webhooks/paystack",
        {"event": "an.event.nobody.handles", "data": {}},
    )
    row = InboundRequest.objects.get()
    assert row.processed_at is not None

    with time_machine.travel(row.received_at + INBOUND_RETENTION - timedelta(hours=1)):
        assert tasks.purge_inbound_requests() == 0

    assert InboundRequest.objects.filter(pk=row.pk).exists()


def test_the_purge_is_a_declared_daily_schedule(db):
    spec = next(s for s in declared() if s.name == "payments-purge-inbound-requests")

    assert spec.func == "payments.gateway.tasks.purge_inbound_requests"
    assert spec.schedule_type == Schedule.DAILY
    call_command("setup_schedules", stdout=StringIO())
    assert Schedule.objects.get(name=spec.name).func == spec.func


def test_rows_the_old_code_left_without_a_verdict_are_purged_like_refused_ones(db):
    """Before the signature was checked first, unsigned requests were stored whole
    with no processed_at, and a 500 could leave a row with no verdict at all."""
    for verdict in (False, None):
        InboundRequest.objects.create(
            endpoint=InboundRequest.Endpoint.PAYSTACK,
            body=b"x" * 1000,
            signature_valid=verdict,
        )
    later = timezone.now() + REFUSED_RETENTION

    with time_machine.travel(later - timedelta(hours=1)):
        assert tasks.purge_inbound_requests() == 0
    with time_machine.travel(later + timedelta(hours=1)):
        assert tasks.purge_inbound_requests() == 2

    assert not InboundRequest.objects.exists()


def test_the_purge_goes_through_every_batch(db, monkeypatch):
    monkeypatch.setattr("payments.gateway.services.inbound_requests.PURGE_BATCH", 2)
    for _ in range(5):
        signed_post(APIClient(), "/api/v1/webhooks/paystack", b"{}", signature=None)
    assert InboundRequest.objects.count() == 5

    with time_machine.travel(timezone.now() + REFUSED_RETENTION + timedelta(hours=1)):
        assert tasks.purge_inbound_requests() == 5

    assert not InboundRequest.objects.exists()
