"""The delivery pass (DESIGN section 10): claim due deliveries in batches with
`SELECT ... FOR UPDATE SKIP LOCKED`, commit the claim (a lease: `next_attempt_at`
moves past the batch's worst case), send the batch over a thread pool and a shared
keep-alive session, then record every attempt and the new states set-based. A
pass crashing after its claim leaves the rows to be claimed again when the lease
ends; two passes never claim one row. Run by `webhooks.tasks` (on commit, and by
the sweeper every minute); `webhooks.services` re-exports `deliver_due`.
"""

import logging
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from config.db.rows import bulk_insert
from merchants.models import Merchant

from . import transport
from .models import MAX_ATTEMPTS, RETRY_DELAYS, Delivery, DeliveryAttempt, Event

logger = logging.getLogger(__name__)

# Longer than any batch can take (two rounds of the thread pool, each at worst a
# connect and a read timeout); a crashed worker's claims come due again after it.
CLAIM_LEASE = timedelta(minutes=5)
# A pass stops claiming after this long and enqueues its continuation, staying
# well inside the django-q2 task timeout.
PASS_BUDGET_SECONDS = 30


@dataclass(frozen=True)
class _Claim:
    delivery_id: int
    event_id: int
    # Number of this attempt in the retry schedule (1..MAX_ATTEMPTS), which is
    # also its number among the event's scheduled attempts.
    step: int
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
            .values_list("id", "event_id", "scheduled_attempts")[:limit]
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
        _Claim(delivery_id, event_id, step + 1, now)
        for delivery_id, event_id, step in rows
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
            attempt_row(
                event_id=claim.event_id,
                merchant_id=job.merchant_id,
                attempt=claim.step,
                trigger=DeliveryAttempt.Trigger.SCHEDULED,
                url=job.url,
                outcome=outcome,
                next_attempt_at=next_at,
            )
        )
    now = timezone.now()
    pending = Delivery.objects.filter(status=Delivery.Status.PENDING)
    with transaction.atomic():
        bulk_insert(attempts)
        if delivered_ids:
            # A success counts even from a worker whose lease ran out.
            Delivery.transition_where(
                pending.filter(id__in=delivered_ids),
                Delivery.Status.DELIVERED,
                at=now,
                same={"next_attempt_at": None},
            )
        # Failures apply only while the claim is still this worker's: a worker
        # that took the row over after the lease has a higher step.
        for (step, next_at), ids in retry_at.items():
            pending.filter(id__in=ids, scheduled_attempts=step).update(
                next_attempt_at=next_at
            )
        for step, ids in exhausted.items():
            Delivery.transition_where(
                pending.filter(id__in=ids, scheduled_attempts=step),
                Delivery.Status.FAILED,
                at=now,
                same={"next_attempt_at": None},
            )
    return len(delivered_ids)


def attempt_row(
    *,
    event_id: int | None,
    merchant_id: int,
    attempt: int,
    trigger: str,
    url: str,
    outcome: transport.Outcome,
    next_attempt_at: datetime | None = None,
    test_event_id: str = "",
) -> DeliveryAttempt:
    """The record of one attempt (scheduled here, a replay or a test)."""
    return DeliveryAttempt(
        event_id=event_id,
        test_event_id=test_event_id,
        merchant_id=merchant_id,
        attempt=attempt,
        trigger=trigger,
        url=url[:500],
        delivered=outcome.delivered,
        status_code=outcome.status_code,
        error=outcome.error[:300],
        latency_ms=outcome.latency_ms,
        attempted_at=outcome.attempted_at,
        next_attempt_at=next_attempt_at,
    )


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
