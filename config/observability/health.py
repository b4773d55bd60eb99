"""`GET /healthz` and `GET /readyz` (DESIGN section 16), for load balancers and
orchestrators: no authentication, and nothing in the answer but the checks'
names and what failed (details go to the log).

- /healthz: the process is up and serving; it reads nothing.
- /readyz: the database answers, every migration of this release is applied, and
  a task cluster's heartbeat is fresh (config/observability/cluster.py). 200 when
  all hold, else 503 with `failed` naming the checks that did not.
"""

import logging
import threading

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import JsonResponse
from django.views.decorators.http import require_safe

from config.api.unavailable import logged_already

from .cluster import heartbeats

logger = logging.getLogger(__name__)

OK = "ok"
DATABASE_UNREACHABLE = "unreachable"


def _database() -> str:
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT 1")
    return OK


def _migrations() -> str:
    # The graph is this release's migration files (imported once per process),
    # the applied set one query: a few milliseconds per probe.
    executor = MigrationExecutor(connections[DEFAULT_DB_ALIAS])
    unapplied = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return f"{len(unapplied)} migration(s) not applied" if unapplied else OK


def _cluster() -> str:
    beats = heartbeats()
    if beats.serving:
        return OK
    limit = settings.CLUSTER_HEARTBEAT_MAX_AGE
    if beats.freshest_age is None:
        return "no task cluster is running (no heartbeat)"
    return (
        f"no task cluster heartbeat in the last {limit} s "
        f"(the newest is {beats.freshest_age:.0f} s old)"
    )


def readiness() -> dict[str, str]:
    """Each check's verdict: "ok" or one readable sentence."""
    errors: dict[str, Exception] = {}
    checks = {"database": _run("database", _database, DATABASE_UNREACHABLE, errors)}
    if checks["database"] == OK:
        checks["migrations"] = _run(
            "migrations", _migrations, "could not be read", errors
        )
    else:
        checks["migrations"] = "not checked: the database is unreachable"
    checks["cluster"] = _run(
        "cluster",
        _cluster,
        "the heartbeat cannot be read (broker or cache unreachable)",
        errors,
    )
    _log_changes(checks, errors)
    return checks


def _run(name: str, check, verdict_on_error: str, errors: dict) -> str:
    try:
        return check()
    except Exception as error:  # a check that cannot run is a verdict, not a 500
        errors[name] = error
        return verdict_on_error


class _Verdicts:
    """This process's failing checks, so that a check is logged when it starts
    failing and when it recovers, not at every probe."""

    def __init__(self):
        self.lock = threading.Lock()
        self.failing: dict[str, str] = {}


_verdicts = _Verdicts()


def _log_changes(checks: dict[str, str], errors: dict[str, Exception]) -> None:
    with _verdicts.lock:
        for check, verdict in checks.items():
            before = _verdicts.failing.get(check)
            if verdict == OK and before is not None:
                del _verdicts.failing[check]
                logger.info("Ready again: %s is ok.", check)
            elif verdict != OK and verdict != before:
                _verdicts.failing[check] = verdict
                error = errors.get(check)
                detail = (
                    f" ({type(error).__name__}: {' '.join(str(error).split())})"
                    if error
                    else ""
                )
                logger.warning("Not ready: %s: %s%s", check, verdict, detail)


def _answer(body: dict, status: int) -> JsonResponse:
    response = JsonResponse(body, status=status)
    response["Cache-Control"] = "no-store"
    response["X-Content-Type-Options"] = "nosniff"
    return response


@require_safe
def healthz(request):
    return _answer({"status": "ok"}, 200)


@require_safe
def readyz(request):
    checks = readiness()
    failed = [name for name, verdict in checks.items() if verdict != OK]
    if not failed:
        return _answer({"status": "ready", "checks": checks}, 200)
    response = _answer(
        {"status": "unavailable", "failed": failed, "checks": checks}, status=503
    )
    # Logged when a check starts failing (above), not once per probe by Django.
    return logged_already(response)
