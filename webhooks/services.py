"""Webhook use-cases: emit (outbox), deliver due events, replay, test (DESIGN §10).

Delivery is at-least-once and the delivery rows are the source of truth:
- `emit_event` writes the event and its pending delivery in the caller's
  transaction and, on commit, enqueues one delivery pass (the fast path);
- `deliver_due` (that pass, also run every minute by the sweeper schedule; in
  `webhooks/delivery.py`) claims due deliveries in batches with `SELECT ... FOR
  UPDATE SKIP LOCKED` under a lease, sends them over a thread pool and records
  every attempt set-based; two passes never claim one row.
"""

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django_q.tasks import async_task

from config.api.ids import new_public_id
from config.db.rows import bulk_insert
from config.destinations import refusal_message
from merchants.audit.actors import SYSTEM, Actor
from merchants.audit.services import audit_record
from merchants.models import Merchant

from . import transport
from .delivery import (
    CLAIM_LEASE,
    PASS_BUDGET_SECONDS,
    PassResult,
    attempt_row,
    deliver_due,
)
from .errors import WebhookUrlNotAllowed
from .events import envelope_body, webhook_test_data
from .models import (
    EVENT_TYPES,
    TEST_EVENT_TYPE,
    Delivery,
    DeliveryAttempt,
    Event,
)

__all__ = [
    "CLAIM_LEASE",
    "DELIVER_TASK",
    "PASS_BUDGET_SECONDS",
    "PassResult",
    "deliver_due",
    "emit_event",
    "emit_events",
    "emit_for_merchants",
    "enqueue_pass",
    "event_replay",
    "pass_started",
    "webhook_test",
]

DELIVER_TASK = "webhooks.tasks.deliver_due_webhooks"

logger = logging.getLogger(__name__)


def _new_event(*, merchant: Merchant, event_type: str, data: dict, now) -> Event:
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}")
    if not isinstance(data, dict):
        raise TypeError("event data must be a dict")
    event = Event(merchant=merchant, event_type=event_type, created_at=now)
    event.body = envelope_body(
        event_id=event.public_id,
        event_type=event_type,
        merchant_id=merchant.api_id,
        livemode=merchant.livemode,
        created_at=now,
        data=data,
    )
    return event


def emit_event(*, merchant: Merchant, event_type: str, data: dict) -> Event:
    """Record an event for the merchant in the caller's transaction (outbox).

    Nothing is sent before the transaction commits, and a rolled-back transaction
    emits nothing. `data` holds plain JSON values (kobo as int, dates as strings).
    """
    return emit_events(merchant=merchant, events=[(event_type, data)])[0]


def emit_events(
    *, merchant: Merchant, events: Sequence[tuple[str, dict]]
) -> list[Event]:
    """`emit_event` for several events at once."""
    return emit_for_merchants([(merchant, events)])


def emit_for_merchants(
    groups: Sequence[tuple[Merchant, Sequence[tuple[str, dict]]]],
) -> list[Event]:
    """`emit_events` for several merchants at once (the auto-debit engine's batch):
    one insert of the events and one of their deliveries in all."""
    now = timezone.now()
    rows = [
        _new_event(merchant=merchant, event_type=kind, data=data, now=now)
        for merchant, events in groups
        for kind, data in events
    ]
    if not rows:
        return []
    with transaction.atomic(savepoint=False):
        bulk_insert(rows)
        bulk_insert(
            [Delivery(event_id=event.pk, next_attempt_at=now) for event in rows]
        )
    _enqueue_pass_on_commit()
    return rows


def _enqueue_pass_on_commit() -> None:
    """One delivery pass per committed transaction, however many events it emits.

    A callback already waiting in `run_on_commit` is one that the transaction will
    run (a rolled-back savepoint removes its own callbacks), so a second one would
    only be a second, idle pass.
    """
    connection = transaction.get_connection()
    if connection.in_atomic_block and any(
        func is enqueue_pass for _, func, _ in connection.run_on_commit
    ):
        return
    # robust: a broker that is down must not fail the caller; the sweeper will
    # deliver within a minute.
    transaction.on_commit(enqueue_pass, robust=True)


# Set while a delivery pass is queued and has not started: commits in the meantime
# need no pass of their own, since that pass opens this gate before it claims and
# so sees their deliveries. Without it every committing request queued a task, and
# at ~100 commits/s the queue itself became the delay (bench/RESULTS.md). The
# lifetime bounds the harm of a queued task that is lost: after it the next commit
# queues a pass again (and the sweeper runs every minute regardless).
PASS_QUEUED_KEY = "webhooks:delivery-pass-queued"
PASS_QUEUED_SECONDS = 30

# Whether the gate's failure was logged: once, until the gate works again.
_gate_failure_reported = False


def enqueue_pass() -> None:
    """Queue a delivery pass unless one is queued and has not started yet.

    When the gate cannot be read (its cache is down, or its table missing) every
    commit queues its pass: a pass too many is cheap, a delivery left to the
    sweeper is not.
    """
    if _close_gate():
        try:
            async_task(DELIVER_TASK, task_name="deliver-webhooks")
        except Exception:
            _open_gate()  # nothing is queued: do not hold the gate
            raise


def pass_started() -> None:
    """A pass starts: commits from now on queue the next one."""
    _open_gate()


def _close_gate() -> bool:
    """False only when a queued pass holds the gate already."""
    global _gate_failure_reported
    try:
        closed = cache.add(PASS_QUEUED_KEY, True, PASS_QUEUED_SECONDS)
    except Exception as error:  # any cache backend's failure
        _gate_failed(error)
        return True
    _gate_failure_reported = False
    return closed


def _open_gate() -> None:
    try:
        cache.delete(PASS_QUEUED_KEY)
    except Exception as error:  # any cache backend's failure
        _gate_failed(error)


def _gate_failed(error: Exception) -> None:
    global _gate_failure_reported
    if not _gate_failure_reported:
        _gate_failure_reported = True
        logger.warning(
            "The webhook delivery gate cannot use the cache (%s: %s); every commit "
            "that emits events queues its own delivery pass until it can.",
            type(error).__name__,
            error,
        )


# Replay and test --------------------------------------------------------------


@dataclass(frozen=True)
class ReplayResult:
    event: Event
    outcome: transport.Outcome


def event_replay(*, event: Event, actor: Actor = SYSTEM) -> ReplayResult:
    """Send the stored event again, now, to the merchant's current webhook URL.

    One attempt, recorded as the event's next replay (numbered apart from the
    retry schedule's attempts, and naming no next attempt: it schedules none).
    It leaves the retry schedule alone: a success settles a pending or failed
    event as delivered; a failure changes nothing else.
    """
    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().get(event=event)
        delivery.attempts += 1
        delivery.save(update_fields=["attempts"])
        audit_record(
            merchant=event.merchant,
            action="webhook.event_replayed",
            actor=actor,
            object_type="event",
            object_id=event.public_id,
        )
    merchant = Merchant.objects.only("id", "webhook_url", "webhook_secret").get(
        pk=event.merchant_id
    )
    outcome = transport.post(
        url=merchant.webhook_url,
        body=event.body.encode(),
        secret=merchant.webhook_secret,
        event_id=event.public_id,
    )
    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().get(pk=delivery.pk)
        if outcome.delivered and delivery.status != Delivery.Status.DELIVERED:
            delivery.next_attempt_at = None
            delivery.transition_to(
                Delivery.Status.DELIVERED, update_fields=["next_attempt_at"]
            )
        # Numbered under the delivery's lock, so replays of one event at once
        # take one number each.
        replays = DeliveryAttempt.objects.filter(
            event=event, trigger=DeliveryAttempt.Trigger.REPLAY
        ).count()
        attempt_row(
            event_id=event.pk,
            merchant_id=event.merchant_id,
            attempt=replays + 1,
            trigger=DeliveryAttempt.Trigger.REPLAY,
            url=merchant.webhook_url,
            outcome=outcome,
        ).save(force_insert=True)
    return ReplayResult(event=event, outcome=outcome)


def webhook_test(*, merchant: Merchant, url: str, secret: str) -> transport.Outcome:
    """Send a signed `webhook.test` event to `url`. The event is not stored
    (never retried, never replayed); the attempt is, as a `test` attempt.

    A URL the guard refuses raises WebhookUrlNotAllowed (400), and records
    nothing.
    """
    try:
        transport.check_url(url)
    except transport.UrlNotAllowed as error:
        raise WebhookUrlNotAllowed(refusal_message(error)) from None
    now = timezone.now()
    event_id = new_public_id("evt")
    body = envelope_body(
        event_id=event_id,
        event_type=TEST_EVENT_TYPE,
        merchant_id=merchant.api_id,
        livemode=merchant.livemode,
        created_at=now,
        data=webhook_test_data(),
    ).encode()
    outcome = transport.post(url=url, body=body, secret=secret, event_id=event_id)
    if outcome.refused:
        reason = outcome.error.removeprefix(transport.REFUSED_PREFIX)
        raise WebhookUrlNotAllowed(refusal_message(transport.UrlNotAllowed(reason)))
    attempt_row(
        event_id=None,
        test_event_id=event_id,
        merchant_id=merchant.pk,
        attempt=1,
        trigger=DeliveryAttempt.Trigger.TEST,
        url=url,
        outcome=outcome,
    ).save(force_insert=True)
    return outcome
