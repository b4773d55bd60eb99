"""Prometheus metrics at `GET /metrics` (DESIGN section 16), in the text format of
the maintained client library, `prometheus_client`.

Two kinds of figures:

- Requests: `http_requests_total{route, method, status}` and the histogram
  `http_request_duration_seconds{route, method}`, counted by
  `RequestMetricsMiddleware` in the process that served the request. `route` is
  the URL pattern's name, never the path. Under gunicorn's several processes set
  `PROMETHEUS_MULTIPROC_DIR` (config/gunicorn.py): each process then writes its
  counts to files in that folder and whichever process answers /metrics adds up
  all of them. Without it, each process answers its own counts (right for one
  process: `runserver`, `gunicorn -w 1`).
- Business figures: counted from the database at scrape time by the registered
  sources (config/observability/sources.py) and the task queue's own
  (cluster.py), so the hot paths do no metrics work and every process answers
  the same figures. A source that fails (its database query, the broker) costs
  its own figures only: `metrics_source_up{source}` says which.

Readable only with `Authorization: Bearer <METRICS_TOKEN>`; 404 while it is unset.
"""

import functools
import hmac
import logging
import os
import threading
import time

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.http import HttpResponse
from django.views.decorators.http import require_safe
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.process_collector import ProcessCollector

from . import cluster
from .sources import registered_sources

logger = logging.getLogger(__name__)

# A source's query that runs longer is cancelled (PostgreSQL's statement_timeout):
# a slow count costs a scrape that source's figures, never a pile of queries.
SOURCE_TIMEOUT_MS = 5000

REQUESTS = Counter(
    "http_requests",
    "Requests answered, by URL pattern name, method and status.",
    ["route", "method", "status"],
    registry=None,
)
LATENCY = Histogram(
    "http_request_duration_seconds",
    "Time until the response was returned (a streamed body's remainder is not "
    "counted), by URL pattern name and method.",
    ["route", "method"],
    registry=None,
)


def multiprocess_dir() -> str:
    """prometheus_client chooses its storage from this variable when it is first
    imported; read here the same way."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")


@functools.cache
def scrape_registry() -> CollectorRegistry:
    registry = CollectorRegistry()
    if multiprocess_dir():
        MultiProcessCollector(registry)
    else:
        registry.register(REQUESTS)
        registry.register(LATENCY)
        ProcessCollector(registry=registry)
    registry.register(DatabaseCollector())
    return registry


class DatabaseCollector:
    """Runs every source at each scrape, each in its own transaction."""

    def describe(self):
        return []  # registering must not run the queries

    def collect(self):
        up = GaugeMetricFamily(
            "metrics_source_up",
            "1 when the source's figures were read at this scrape, else 0.",
            labels=["source"],
        )
        took = GaugeMetricFamily(
            "metrics_source_duration_seconds",
            "Time taken to read the source's figures at this scrape.",
            labels=["source"],
        )
        sources = {"taskqueue": cluster.metric_families, **registered_sources()}
        for name, source in sources.items():
            started = time.perf_counter()
            try:
                families = _read(source)
            except Exception:
                _failed(name)
                families = []
                up.add_metric([name], 0)
            else:
                _read_again(name)
                up.add_metric([name], 1)
            took.add_metric([name], time.perf_counter() - started)
            yield from families
        yield up
        yield took


def _read(source) -> list:
    connection = connections[DEFAULT_DB_ALIAS]
    if connection.vendor != "postgresql":
        # SQLite: no statement timeout, and no transaction (the settings'
        # IMMEDIATE transactions would take the write lock to count).
        return list(source())
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT set_config('statement_timeout', %s, true)",
                [str(SOURCE_TIMEOUT_MS)],
            )
        return list(source())


_failing: set[str] = set()
_failing_lock = threading.Lock()


def _failed(name: str) -> None:
    """Logged (with the error) when a source starts failing, not every scrape."""
    with _failing_lock:
        first = name not in _failing
        _failing.add(name)
    if first:
        logger.exception("Metrics source %r could not be read.", name)


def _read_again(name: str) -> None:
    with _failing_lock:
        if name not in _failing:
            return
        _failing.discard(name)
    logger.info("Metrics source %r is read again.", name)


def _bearer(request) -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


@require_safe
def metrics(request):
    expected = settings.METRICS_TOKEN
    if not expected:
        # Plain, not the 404 page: that one is built from the request's host.
        return HttpResponse(status=404)
    given = _bearer(request)
    if given is None:
        response = HttpResponse(status=401)
        response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    if not hmac.compare_digest(given.encode(), expected.encode()):
        return HttpResponse(status=403)
    response = HttpResponse(
        generate_latest(scrape_registry()), content_type=CONTENT_TYPE_LATEST
    )
    response["Cache-Control"] = "no-store"
    return response
