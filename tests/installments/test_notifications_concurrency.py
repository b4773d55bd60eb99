"""Two runs at once (two clusters, or a rerun during a run) on PostgreSQL with
real threads: both read the same messages to send, each message is sent once,
because a message is claimed by inserting its row before it is sent."""

import threading
from datetime import datetime, time, timedelta

import pytest
import time_machine
from django.conf import settings
from django.core import mail
from django.utils import timezone

from installments.notifications import selectors, services
from installments.notifications.models import Message

from ..concurrency import run_concurrently
from .conftest import installments_of, make_active_plan

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        not settings.IS_POSTGRES,
        reason="SQLite serialises every write transaction; run with "
        "DATABASE_URL=postgres://...",
    ),
    pytest.mark.django_db(transaction=True),
]

RUNS = 2


def both_read_before_either_claims(monkeypatch, name: str) -> None:
    """Each run's first read waits for the other's: both hold the same rows to
    send when they claim."""
    barrier = threading.Barrier(RUNS)
    seen = threading.local()
    read = getattr(selectors, name)

    def wrapped(*args, **kwargs):
        rows = read(*args, **kwargs)
        if not getattr(seen, "once", False):
            seen.once = True
            barrier.wait(timeout=60)
        return rows

    monkeypatch.setattr(selectors, name, wrapped)


@pytest.fixture
def plans(db):
    made = [make_active_plan(email=f"c{n}@mail.example.com") for n in range(3)]
    for n, setup in enumerate(made):
        customer = setup.shopper.customer
        customer.sms_phone = f"+234803123456{n}"
        customer.save(update_fields=["sms_phone"])
    return [setup.plan for setup in made]


def test_two_reminder_runs_at_once_send_each_reminder_once(
    plans, monkeypatch, sms_outbox
):
    both_read_before_either_claims(monkeypatch, "installments_to_remind")
    due = installments_of(plans[0])[0].due_date
    day = due - timedelta(days=settings.REMINDER_DAYS_BEFORE)

    with time_machine.travel(timezone.make_aware(datetime.combine(day, time(9)))):
        tallies = run_concurrently(lambda: services.reminders_send(day=day), RUNS)

    assert (
        sorted(t.sent for t in tallies) == [0, 6] or sum(t.sent for t in tallies) == 6
    )
    assert len(mail.outbox) == 3
    assert len(sms_outbox) == 3
    assert Message.objects.filter(kind="reminder", status="sent").count() == 6


def test_two_receipt_sweeps_at_once_send_each_receipt_once(
    plans, monkeypatch, sms_outbox
):
    both_read_before_either_claims(monkeypatch, "collections_to_receipt")

    tallies = run_concurrently(services.collection_receipts_send, RUNS)

    assert sum(t.sent for t in tallies) == 6
    assert sorted(m.to[0] for m in mail.outbox) == [
        f"c{n}@mail.example.com" for n in range(3)
    ]
    assert len(sms_outbox) == 3
