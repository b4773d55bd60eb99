"""One DRF exception handler mapping every failure onto the spec's two error shapes.

- DomainError (business rule) -> soft shape `{ok: false, error: {code, message}}`.
- Framework, authentication and validation errors -> `{detail: "<sentence>"}`;
  validation errors add `errors: {field: [messages]}` beside `detail`.
- An unreachable database -> 503 `service_unavailable` with Retry-After, logged
  once per outage (config/api/unavailable.py).
- Anything unexpected -> 500 `{detail}` naming the request id, never a stack trace.
"""

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from rest_framework import exceptions as drf
from rest_framework.response import Response

from . import request_id
from .errors import DomainError
from .unavailable import is_database_unreachable, logged_already, service_unavailable

logger = logging.getLogger("config.api")


def soft_error_body(code: str, message: str) -> dict:
    return {"ok": False, "error": {"code": code, "message": message}}


def internal_error_body() -> dict:
    return {
        "detail": "Internal server error. The failure was logged with request id "
        f"{request_id.current()}; quote it when contacting support."
    }


def _flatten(errors, prefix: str = "") -> list[tuple[str, str]]:
    """[(field path, message)] from DRF's nested error structure."""
    out: list[tuple[str, str]] = []
    if isinstance(errors, dict):
        for key, value in errors.items():
            name = "" if key in ("non_field_errors", "__all__") else str(key)
            path = f"{prefix}.{name}" if prefix and name else (name or prefix)
            out.extend(_flatten(value, path))
    elif isinstance(errors, list):
        for index, value in enumerate(errors):
            if isinstance(value, dict | list):
                out.extend(_flatten(value, f"{prefix}[{index}]"))
            else:
                out.append((prefix, str(value)))
    else:
        out.append((prefix, str(errors)))
    return out


def validation_detail(errors) -> str:
    parts = [
        f"{field}: {message}" if field else message
        for field, message in _flatten(errors)
    ]
    if not parts:
        return "Invalid input."
    return "Invalid input. " + " ".join(
        part if part.endswith(".") else part + "." for part in parts[:5]
    )


def exception_handler(exc, context):
    if is_database_unreachable(exc):
        return logged_already(_domain_error_response(service_unavailable(exc)))
    if isinstance(exc, DomainError):
        return _domain_error_response(exc)
    if isinstance(exc, DjangoValidationError):
        exc = drf.ValidationError(
            exc.message_dict if hasattr(exc, "error_dict") else exc.messages
        )
    elif isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf.PermissionDenied()

    if isinstance(exc, drf.ValidationError):
        errors = (
            exc.detail
            if isinstance(exc.detail, dict)
            else {"non_field_errors": exc.detail}
        )
        body = {"detail": validation_detail(errors), "errors": _plain(errors)}
        return Response(body, status=400)
    if isinstance(exc, drf.APIException):
        headers = {}
        if isinstance(exc, drf.NotAuthenticated | drf.AuthenticationFailed):
            headers["WWW-Authenticate"] = 'Bearer realm="api"'
        detail = (
            exc.detail if isinstance(exc.detail, str) else validation_detail(exc.detail)
        )
        return Response(
            {"detail": str(detail)}, status=exc.status_code, headers=headers
        )

    logger.exception("Unhandled error while serving %s", context.get("view"))
    return Response(internal_error_body(), status=500)


def _domain_error_response(exc: DomainError) -> Response:
    return Response(
        soft_error_body(exc.code, exc.message),
        status=exc.http_status,
        headers=exc.headers,
    )


def _plain(errors):
    if isinstance(errors, dict):
        return {str(key): _plain(value) for key, value in errors.items()}
    if isinstance(errors, list):
        return [_plain(value) for value in errors]
    return str(errors)
