"""The sweeper: deliveries are rows, so whatever happened to the fast path, a pass
sends what is due."""

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from django_q.models import Schedule

from config import schedules
from webhooks import services, tasks, transport
from webhooks.models import Delivery

from .conftest import SECRET

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"


def emit(merchant, n=0):
    return services.emit_event(
        merchant=merchant, event_type="debit.scheduled", data={"resourceId": f"i{n}"}
    )


def test_the_sweeper_runs_every_minute():
    [spec] = [s for s in schedules.declared() if s.name == "deliver-due-webhooks"]

    assert spec.func == "webhooks.tasks.deliver_due_webhooks"
    assert (spec.schedule_type, spec.minutes) == (Schedule.MINUTES, 1)


def test_events_whose_enqueue_was_lost_go_out_on_the_next_sweep(subscriber, receiver):
    # No commit callback runs here: as if the process died after the commit.
    events = [emit(subscriber, n) for n in range(3)]
    assert receiver.received == []

    assert tasks.deliver_due_webhooks() == 3

    assert sorted(receiver.event_ids()) == sorted(e.public_id for e in events)


def test_deliveries_due_while_the_workers_were_down_go_out_when_they_return(
    subscriber, receiver
):
    receiver.answer(500)
    with time_machine.travel(START, tick=False) as clock:
        failed_once = emit(subscriber, 1)
        services.deliver_due()
        clock.move_to(START + timedelta(hours=5))
        never_sent = emit(subscriber, 2)
        clock.move_to(START + timedelta(hours=9))  # no worker ran meanwhile

        services.deliver_due()

    assert sorted(receiver.event_ids()) == sorted(
        [failed_once.public_id, failed_once.public_id, never_sent.public_id]
    )
    assert set(Delivery.objects.values_list("status", flat=True)) == {"delivered"}


def test_a_bug_while_sending_fails_one_attempt_not_the_batch(
    subscriber, receiver, monkeypatch
):
    good, bad = emit(subscriber, 1), emit(subscriber, 2)
    real = transport.post

    def flaky(**kwargs):
        if kwargs["event_id"] == bad.public_id:
            raise RuntimeError("bug")
        return real(**kwargs)

    monkeypatch.setattr(transport, "post", flaky)

    services.deliver_due()

    assert Delivery.objects.get(event=good).status == "delivered"
    assert bad.attempts.get().error == "internal error"


def test_the_documented_verification_code_accepts_a_real_delivery(subscriber, receiver):
    emit(subscriber)
    services.deliver_due()
    [request] = receiver.received
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.S).group(1)
    namespace = {}
    exec(code.replace("your webhook secret", SECRET), namespace)
    headers = {name.title(): value for name, value in request.headers.items()}

    assert namespace["verify_signature"](request.body, headers) is True
    assert namespace["verify_timestamped"](request.body, headers) is True
    assert namespace["verify_signature"](request.body + b" ", headers) is False
    assert namespace["verify_timestamped"](request.body + b" ", headers) is False
