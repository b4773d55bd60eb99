"""Two workers running the delivery pass at once never send an event twice."""

import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.conf import settings as django_settings
from django.db import connection

from webhooks import services
from webhooks.models import Delivery, DeliveryAttempt

from .conftest import make_subscriber

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


@pytest.mark.postgres
@pytest.mark.skipif(
    not django_settings.IS_POSTGRES,
    reason="needs PostgreSQL: SQLite has no SELECT ... FOR UPDATE SKIP LOCKED and "
    "lets one writer in at a time, so two workers cannot race there",
)
@pytest.mark.django_db(transaction=True)
def test_two_workers_running_the_retry_pass_at_once_deliver_each_event_once(
    receiver, settings
):
    # One request in flight per worker, in claims of two deliveries: many claims
    # interleave, and the rendezvous below proves the two workers overlapped.
    settings.WEBHOOK_DELIVERY_THREADS = 1
    merchant = make_subscriber(receiver.url)
    count = 40
    receiver.status = 500
    with time_machine.travel(START, tick=False) as clock:
        services.emit_events(
            merchant=merchant,
            events=[
                ("debit.scheduled", {"resourceId": f"inst_{n}"}) for n in range(count)
            ],
        )
        services.deliver_due()
        assert len(receiver.received) == count

        receiver.received.clear()
        receiver.status = 200
        rendezvous = threading.Barrier(2, timeout=60)
        met = []

        def meet_once():
            if not met:
                rendezvous.wait()
                met.append(True)

        receiver.on_request = meet_once
        clock.move_to(START + timedelta(minutes=1))
        start = threading.Barrier(2)
        results, errors = [], []

        def worker():
            try:
                start.wait()
                results.append(services.deliver_due())
            except Exception as error:  # reported below, not lost in the thread
                errors.append(error)
            finally:
                connection.close()

        threads = [threading.Thread(target=worker) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)

    assert errors == []
    assert not rendezvous.broken
    ids = receiver.event_ids()
    assert len(ids) == count
    assert len(set(ids)) == count
    assert sorted(result.attempted for result in results) != [0, count]
    assert sum(result.attempted for result in results) == count
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}
    assert DeliveryAttempt.objects.filter(delivered=True).count() == count
