"""What the django-q2 task clusters say about themselves, read where they write it.

Each running cluster's sentinel saves a `django_q.status.Stat` every guard cycle
(half a second) under `django_q:<name>:cluster:<cluster id>`, with a lifetime of
3 seconds: in Redis itself with the Redis broker, in Django's cache with the ORM
broker (the database cache table, or Redis when REDIS_URL is set). A cluster that
stops or dies stops writing it and its entry expires. `Stat.get_all()` reads them
through the broker either way. The stat's `timestamp` is the writer's clock at
the save: a heartbeat older than `CLUSTER_HEARTBEAT_MAX_AGE` counts as stale even
while its entry lives.
"""

from dataclasses import dataclass

from django.conf import settings
from django.utils import timezone
from django_q.brokers import get_broker
from django_q.conf import Conf
from django_q.models import Failure
from django_q.status import Stat
from prometheus_client.core import GaugeMetricFamily


@dataclass(frozen=True)
class Heartbeats:
    serving: int  # clusters with a fresh heartbeat, not stopping
    freshest_age: float | None  # seconds since the newest heartbeat, if any


def heartbeats() -> Heartbeats:
    """Raises what the broker raises when it cannot be read (Redis down, or the
    database behind the ORM broker's cache)."""
    now = timezone.now()
    limit = settings.CLUSTER_HEARTBEAT_MAX_AGE
    # A stopping cluster still writes its heartbeat; it takes no more tasks.
    not_serving = {str(Conf.STOPPING), str(Conf.STOPPED)}
    ages = []
    serving = 0
    for stat in Stat.get_all(broker=get_broker()):
        age = max((now - stat.timestamp).total_seconds(), 0.0)
        ages.append(age)
        if age <= limit and str(stat.status) not in not_serving:
            serving += 1
    return Heartbeats(serving=serving, freshest_age=min(ages, default=None))


@dataclass(frozen=True)
class QueueDepth:
    waiting: int  # queued, not handed to a worker
    in_flight: int | None  # handed out, not acknowledged (ORM broker only)
    failed: int  # failed tasks kept by django-q2 (admin: Task queue > Failed)


def queue_depth() -> QueueDepth:
    broker = get_broker()
    in_flight = broker.lock_size()  # None with Redis: it does not track them
    return QueueDepth(
        waiting=broker.queue_size(),
        in_flight=in_flight,
        failed=Failure.objects.count(),
    )


def metric_families():
    """The task queue's figures for /metrics (config/observability/metrics.py)."""
    depth = queue_depth()
    yield GaugeMetricFamily(
        "taskqueue_waiting_tasks",
        "Tasks queued and not yet handed to a worker.",
        value=depth.waiting,
    )
    if depth.in_flight is not None:
        yield GaugeMetricFamily(
            "taskqueue_in_flight_tasks",
            "Tasks handed to a worker and not yet acknowledged (ORM broker).",
            value=depth.in_flight,
        )
    yield GaugeMetricFamily(
        "taskqueue_failed_tasks",
        "Failed tasks kept by django-q2 (admin: Task queue > Failed tasks).",
        value=depth.failed,
    )
    beats = heartbeats()
    yield GaugeMetricFamily(
        "taskqueue_clusters_serving",
        "Task clusters whose heartbeat is fresh (CLUSTER_HEARTBEAT_MAX_AGE).",
        value=beats.serving,
    )
    if beats.freshest_age is not None:
        yield GaugeMetricFamily(
            "taskqueue_heartbeat_age_seconds",
            "Seconds since the newest task cluster heartbeat.",
            value=beats.freshest_age,
        )
