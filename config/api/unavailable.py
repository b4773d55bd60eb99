"""Answers while the database cannot be reached (refused, shut down, starting up).

Every request that needs the database then fails the same way: it is answered 503
with `Retry-After`, the soft error shape `service_unavailable` under /api/ and a
plain page elsewhere, so that load balancers and clients back off. The outage is
logged once when it begins and once when a request reaches the database again,
not with a traceback per request.

Views' errors reach `DatabaseUnavailableMiddleware.process_exception`; DRF views'
reach the API exception handler (config/api/exceptions.py), which calls
`service_unavailable()`.
"""

import logging
import threading

from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections
from django.http import HttpResponse, JsonResponse
from django.template.loader import render_to_string

from .errors import ServiceUnavailable

logger = logging.getLogger("config.api")

# A failover or a restart of PostgreSQL takes seconds to tens of seconds.
RETRY_AFTER_SECONDS = 10
API_PREFIX = "/api/"

# PostgreSQL SQLSTATEs meaning "not reachable now" rather than "this query failed":
# class 08 (connection exception), shutting down, starting up, too many clients.
_UNREACHABLE_CLASSES = ("08",)
_UNREACHABLE_STATES = {"57P01", "57P02", "57P03", "53300"}
_NOT_A_POSTGRES_ERROR = object()


def is_database_unreachable(error: BaseException) -> bool:
    """Whether `error` says the database cannot be reached, as opposed to a
    query that failed (a deadlock, a timeout, a bug: those stay 500s)."""
    if not isinstance(error, OperationalError | InterfaceError):
        return False
    sqlstate = getattr(error.__cause__, "sqlstate", _NOT_A_POSTGRES_ERROR)
    if sqlstate is _NOT_A_POSTGRES_ERROR:
        return False  # SQLite's errors are about the file, not about reaching it
    # psycopg's own errors (refused, closed, lost) carry no SQLSTATE.
    return (
        sqlstate is None
        or sqlstate.startswith(_UNREACHABLE_CLASSES)
        or sqlstate in _UNREACHABLE_STATES
    )


class _Outage:
    """Whether an outage is under way in this process, for logging it once."""

    def __init__(self):
        self._lock = threading.Lock()
        self.refused = 0  # requests answered 503 since it began; 0: none under way

    def began(self, error: BaseException) -> None:
        with self._lock:
            self.refused += 1
            first = self.refused == 1
        if first:
            logger.error(
                "The database cannot be reached (%s); answering 503 until it can.",
                " ".join(str(error).split()),
            )

    def ended(self) -> None:
        with self._lock:
            refused, self.refused = self.refused, 0
        if refused:
            logger.info(
                "The database is reachable again; %d requests were answered 503.",
                refused,
            )


outage = _Outage()


def service_unavailable(error: BaseException) -> ServiceUnavailable:
    """The domain error for a request that met `error`, with its Retry-After."""
    outage.began(error)
    return ServiceUnavailable(headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def logged_already(response):
    """Django logs every 5xx response (`django.request`, a line per request); the
    outage is logged here instead. The attribute is Django's own for this."""
    response._has_been_logged = True
    return response


class DatabaseUnavailableMiddleware:
    """503 for a view that met an unreachable database; the outage's end is the
    first request that was served with a connection again."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if outage.refused and response.status_code != 503:
            connection = connections[DEFAULT_DB_ALIAS]
            # Asked only while an outage is under way: one query per request then.
            if connection.connection is not None and connection.is_usable():
                outage.ended()
        return response

    def process_exception(self, request, exception):
        if not is_database_unreachable(exception):
            return None
        error = service_unavailable(exception)
        if request.path.startswith(API_PREFIX):
            response = JsonResponse(
                {"ok": False, "error": {"code": error.code, "message": error.message}},
                status=error.http_status,
            )
        else:
            response = HttpResponse(
                render_to_string("503.html"), status=error.http_status
            )
        for name, value in error.headers.items():
            response[name] = value
        return logged_already(response)
