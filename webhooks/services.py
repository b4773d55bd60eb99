"""Webhook use-cases: emit (outbox), deliver due events, replay, test (DESIGN §10).

Delivery is at-least-once and the delivery rows are the source of truth:
- `emit_event` writes the event and its pending delivery in the caller's
  transaction and, on commit, enqueues one delivery pass (the fast path);
- `deliver_due` (that pass, also run every minute by the sweeper schedule) claims
  due deliveries in batches with `SELECT ... FOR UPDATE SKIP LOCKED`, commits the
  claim (a lease: `next_attempt_at` moves past the batch's worst case), sends the
  batch over a thread pool and a shared keep-alive session, then records every
  attempt and the new states set-based. A pass crashing after its claim leaves the
  rows to be claimed again when the lease ends; two passes never claim one row.
"""

import json
import logging
import time
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from django_q.tasks import async_task

from config.api.formats import iso_utc
from config.api.ids import new_public_id
from config.api.rows import bulk_insert
from merchants.models import Merchant

from . import transport
from .errors import WebhookUrlNotAllowed
from .models import (
    EVENT_TYPES,
    MAX_ATTEMPTS,
    RETRY_DELAYS,
    TEST_EVENT_TYPE,
    Delivery,
    DeliveryAttempt,
    Event,
)

logger = logging.getLogger(__name__)

DELIVER_TASK = "webhooks.tasks.deliver_due_webhooks"
# Longer than any batch can take (two rounds of the thread pool, each at worst a
# connect and a read timeout); a crashed worker's claims come due again after it.
CLAIM_LEASE = timedelta(minutes=5)
# A pass stops claiming after this long and enqueues its continuation, staying
# well inside the django-q2 task timeout.
PASS_BUDGET_SECONDS = 30


def _serialize(envelope: dict) -> str:
    return json.dumps(envelope, separators=(",", ":"), ensure_ascii=False)


def _new_event(*, merchant: Merchant, event_type: str, data: dict, now) -> Event:
    if event_type not in EVENT_TYPES:
        raise ValueError(f"unknown event type {event_type!r}")
    if not isinstance(data, dict):
        raise TypeError("event data must be a dict")
    event = Event(merchant=merchant, event_type=event_type, created_at=now)
    event.body = _serialize(
        {
            "eventId": event.public_id,
            "eventType": event_type,
            "merchantId": merchant.public_id,
            "createdAt": iso_utc(now),
            "data": data,
        }
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
    """`emit_event` for several events at once (two statements in all)."""
    now = timezone.now()
    rows = [
        _new_event(merchant=merchant, event_type=kind, data=data, now=now)
        for kind, data in events
    ]
    with transaction.atomic(savepoint=False):
        bulk_insert(rows)
        bulk_insert([Delivery(event=event, next_attempt_at=now) for event in rows])
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


# Set while a pass is queued and not started: commits meanwhile need no pass of
# their own, since that pass opens this gate before it claims (at ~100 commits/s a
# task each made the queue the delay, bench/RESULTS.md). The lifetime bounds a lost
# task's harm; the sweeper runs every minute regardless.
PASS_QUEUED_KEY = "webhooks:delivery-pass-queued"
PASS_QUEUED_SECONDS = 30


def enqueue_pass() -> None:
    """Queue a delivery pass unless one is queued and has not started yet."""
    if cache.add(PASS_QUEUED_KEY, True, PASS_QUEUED_SECONDS):
        try:
            async_task(DELIVER_TASK, task_name="deliver-webhooks")
        except Exception:
            cache.delete(PASS_QUEUED_KEY)  # nothing is queued: do not hold the gate
            raise


def pass_started() -> None:
    """A pass starts: commits from now on queue the next one."""
    cache.delete(PASS_QUEUED_KEY)


# Delivery pass --------------------------------------------------------------


@dataclass(frozen=True)
class _Claim:
    delivery_id: int
    event_id: int
    attempt: int  # number of this attempt among all the event's attempts
    step: int  # number of this attempt in the retry schedule (1..MAX_ATTEMPTS)
    claimed_at: datetime


@dataclass(frozen=True)
class PassResult:
    attempted: int
    delivered: int
    more: bool  # stopped on its time budget with deliveries possibly still due


def _claim_due(limit: int) -> list[_Claim]:
    now = timezone.now()
    with transaction.atomic():
        rows = list(
            Delivery.objects.select_for_update(skip_locked=True)
            .filter(status=Delivery.Status.PENDING, next_attempt_at__lte=now)
            .order_by("next_attempt_at", "id")
            .values_list("id", "event_id", "attempts", "scheduled_attempts")[:limit]
        )
        if not rows:
            return []
        Delivery.objects.filter(
            id__in=[row[0] for row in rows], status=Delivery.Status.PENDING
        ).update(
            attempts=F("attempts") + 1,
            scheduled_attempts=F("scheduled_attempts") + 1,
            next_attempt_at=now + CLAIM_LEASE,
        )
    return [
        _Claim(delivery_id, event_id, attempts + 1, step + 1, now)
        for delivery_id, event_id, attempts, step in rows
    ]


@dataclass(frozen=True)
class _Job:
    claim: _Claim
    event_public_id: str
    merchant_id: int
    url: str
    secret: str
    body: bytes


def _jobs(claims: list[_Claim]) -> list[_Job]:
    events = {
        row["id"]: row
        for row in Event.objects.filter(
            id__in=[claim.event_id for claim in claims]
        ).values("id", "public_id", "merchant_id", "body")
    }
    # One decryption of each merchant's secret per batch.
    merchants = {
        merchant.id: merchant
        for merchant in Merchant.objects.filter(
            id__in={row["merchant_id"] for row in events.values()}
        ).only("id", "webhook_url", "webhook_secret")
    }
    jobs = []
    for claim in claims:
        event = events[claim.event_id]
        merchant = merchants[event["merchant_id"]]
        jobs.append(
            _Job(
                claim=claim,
                event_public_id=event["public_id"],
                merchant_id=merchant.id,
                url=merchant.webhook_url,
                secret=merchant.webhook_secret,
                body=event["body"].encode(),
            )
        )
    return jobs


def _send(job: _Job) -> transport.Outcome:
    try:
        return transport.post(
            url=job.url, body=job.body, secret=job.secret, event_id=job.event_public_id
        )
    except Exception:
        # A bug must not cost the batch its records: this one attempt fails.
        logger.exception("Sending %s failed unexpectedly", job.event_public_id)
        return transport.Outcome(False, None, 0, "internal error", timezone.now())


def _record(results: list[tuple[_Job, transport.Outcome]]) -> int:
    """Write the batch's attempts and new states in a few statements."""
    attempts = []
    delivered_ids = []
    retry_at: dict[tuple[int, datetime], list[int]] = defaultdict(list)
    exhausted: dict[int, list[int]] = defaultdict(list)
    for job, outcome in results:
        claim = job.claim
        next_at = None
        if outcome.delivered:
            delivered_ids.append(claim.delivery_id)
        elif claim.step >= MAX_ATTEMPTS:
            exhausted[claim.step].append(claim.delivery_id)
        else:
            next_at = claim.claimed_at + RETRY_DELAYS[claim.step - 1]
            retry_at[(claim.step, next_at)].append(claim.delivery_id)
        attempts.append(
            DeliveryAttempt(
                event_id=claim.event_id,
                merchant_id=job.merchant_id,
                attempt=claim.attempt,
                trigger=DeliveryAttempt.Trigger.SCHEDULE,
                url=job.url[:500],
                delivered=outcome.delivered,
                status_code=outcome.status_code,
                error=outcome.error[:300],
                latency_ms=outcome.latency_ms,
                attempted_at=outcome.attempted_at,
                next_attempt_at=next_at,
            )
        )
    now = timezone.now()
    pending = Delivery.objects.filter(status=Delivery.Status.PENDING)
    with transaction.atomic():
        bulk_insert(attempts)
        if delivered_ids:
            # A success counts even from a worker whose lease ran out.
            pending.filter(id__in=delivered_ids).update(
                status=Delivery.Status.DELIVERED,
                next_attempt_at=None,
                delivered_at=now,
            )
        # Failures apply only while the claim is still this worker's: a worker
        # that took the row over after the lease has a higher step.
        for (step, next_at), ids in retry_at.items():
            pending.filter(id__in=ids, scheduled_attempts=step).update(
                next_attempt_at=next_at
            )
        for step, ids in exhausted.items():
            pending.filter(id__in=ids, scheduled_attempts=step).update(
                status=Delivery.Status.FAILED, next_attempt_at=None, failed_at=now
            )
    return len(delivered_ids)


def deliver_due(*, budget_seconds: float = PASS_BUDGET_SECONDS) -> PassResult:
    """Send every delivery that is due, batch after batch, until none is left or
    the time budget is spent. Safe to run in any number of workers at once."""
    threads = max(settings.WEBHOOK_DELIVERY_THREADS, 1)
    batch_size = threads * 2
    started = time.monotonic()
    attempted = delivered = 0
    with ThreadPoolExecutor(threads, thread_name_prefix="webhook") as pool:
        while True:
            claims = _claim_due(batch_size)
            if not claims:
                return PassResult(attempted, delivered, more=False)
            jobs = _jobs(claims)
            if len(jobs) == 1:
                outcomes = [_send(jobs[0])]
            else:
                outcomes = list(pool.map(_send, jobs))
            delivered += _record(list(zip(jobs, outcomes, strict=True)))
            attempted += len(jobs)
            if time.monotonic() - started > budget_seconds:
                return PassResult(attempted, delivered, more=True)


# Replay and test --------------------------------------------------------------


@dataclass(frozen=True)
class ReplayResult:
    event: Event
    outcome: transport.Outcome


def event_replay(*, event: Event) -> ReplayResult:
    """Send the stored event again, now, to the merchant's current webhook URL.

    One attempt, recorded like any other. It leaves the retry schedule alone: a
    success settles a pending or failed event as delivered; a failure changes
    nothing else.
    """
    with transaction.atomic():
        delivery = Delivery.objects.select_for_update().get(event=event)
        delivery.attempts += 1
        delivery.save(update_fields=["attempts"])
        number = delivery.attempts
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
            delivery.status = Delivery.Status.DELIVERED
            delivery.next_attempt_at = None
            delivery.delivered_at = timezone.now()
            delivery.save(update_fields=["status", "next_attempt_at", "delivered_at"])
        DeliveryAttempt.objects.create(
            event=event,
            merchant_id=event.merchant_id,
            attempt=number,
            trigger=DeliveryAttempt.Trigger.REPLAY,
            url=merchant.webhook_url[:500],
            delivered=outcome.delivered,
            status_code=outcome.status_code,
            error=outcome.error[:300],
            latency_ms=outcome.latency_ms,
            attempted_at=outcome.attempted_at,
            next_attempt_at=delivery.next_attempt_at,
        )
    return ReplayResult(event=event, outcome=outcome)


def webhook_test(*, merchant: Merchant, url: str, secret: str) -> transport.Outcome:
    """Send a signed `webhook.test` event to `url` (nothing is stored).

    A URL the guard refuses raises WebhookUrlNotAllowed (400).
    """
    try:
        transport.check_url(url)
    except transport.UrlNotAllowed as error:
        raise WebhookUrlNotAllowed(
            f"The webhook URL is not allowed: {error}."
        ) from None
    now = timezone.now()
    event_id = new_public_id("evt")
    body = _serialize(
        {
            "eventId": event_id,
            "eventType": TEST_EVENT_TYPE,
            "merchantId": merchant.public_id,
            "createdAt": iso_utc(now),
            "data": {
                "resourceType": "webhook",
                "message": "A test event: your endpoint received and can verify it.",
            },
        }
    ).encode()
    outcome = transport.post(url=url, body=body, secret=secret, event_id=event_id)
    if outcome.refused:
        reason = outcome.error.removeprefix(transport.REFUSED_PREFIX)
        raise WebhookUrlNotAllowed(f"The webhook URL is not allowed: {reason}.")
    return outcome
