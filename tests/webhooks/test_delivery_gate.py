"""The gate that spares commits a delivery pass each (`enqueue_pass`) lives in the
cache. When the cache cannot be read, every commit queues its pass anyway: the
events go out at once, and the failure is logged once, not with a traceback per
commit."""

import logging

import pytest
from django.db import transaction

from webhooks import services
from webhooks.models import Delivery


@pytest.fixture
def unreadable_gate(settings, monkeypatch):
    """A database cache whose table does not exist (a deploy that never created
    it); nothing reported about the gate yet."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "no_such_cache_table",
        }
    }
    monkeypatch.setattr(services, "_gate_failure_reported", False)


@pytest.mark.django_db(transaction=True)
def test_commits_queue_their_pass_when_the_gate_cannot_be_read(
    subscriber, receiver, unreadable_gate, caplog
):
    caplog.set_level(logging.INFO)
    for number in range(3):
        with transaction.atomic():
            services.emit_event(
                merchant=subscriber,
                event_type="debit.scheduled",
                data={"resourceType": "installment", "resourceId": f"inst_{number}"},
            )

    # Tasks run inline in tests: each commit's pass delivered its event.
    assert len(receiver.received) == 3
    assert Delivery.objects.filter(status=Delivery.Status.DELIVERED).count() == 3
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.name for r in warnings] == ["webhooks.services"]
    assert "no_such_cache_table" in warnings[0].getMessage()
    assert not [r for r in caplog.records if r.exc_info]


@pytest.mark.django_db(transaction=True)
def test_a_gate_readable_again_is_reported_again_when_it_next_fails(
    subscriber, receiver, unreadable_gate, settings, caplog
):
    def commit():
        with transaction.atomic():
            services.emit_event(
                merchant=subscriber,
                event_type="payment.success",
                data={"resourceType": "payment_plan", "resourceId": "plan_1"},
            )

    commit()
    unreadable = settings.CACHES
    settings.CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    }
    commit()
    settings.CACHES = unreadable
    caplog.clear()
    commit()

    assert len(receiver.received) == 3
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.name for r in warnings] == ["webhooks.services"]
