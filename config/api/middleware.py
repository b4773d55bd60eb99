"""Request id, the 1 MiB body limit (larger for the uploads that need it), and
JSON answers for failures outside DRF."""

import json
import logging
import re
from functools import cache

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpResponse, JsonResponse

from . import request_id
from .exceptions import internal_error_body

logger = logging.getLogger("config.api")

API_PREFIX = "/api/"


class RequestIdMiddleware:
    """Every response carries X-Request-Id, echoed from the request or generated."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        rid = request_id.request_id_from_header(request.headers.get("X-Request-Id"))
        request.request_id = rid
        token = request_id.set_current(rid)
        try:
            response = self.get_response(request)
        finally:
            request_id.reset_current(token)
        response["X-Request-Id"] = rid
        return response


@cache
def _upload_limits() -> tuple[tuple[re.Pattern, int], ...]:
    return tuple(
        (re.compile(pattern), limit)
        for pattern, limit in getattr(settings, "UPLOAD_BODY_LIMITS", ())
    )


def upload_limit(request) -> int | None:
    """The larger limit of a multipart upload to a path of UPLOAD_BODY_LIMITS
    (settings), or None: the 1 MiB limit applies."""
    if request.content_type != "multipart/form-data":
        return None
    for pattern, limit in _upload_limits():
        if pattern.fullmatch(request.path):
            return limit
    return None


def _too_large(limit: int) -> JsonResponse:
    return JsonResponse(
        {"detail": f"Request body too large: the limit is {limit // 2**20} MiB."},
        status=413,
    )


class BodySizeLimitMiddleware:
    """Bodies over DATA_UPLOAD_MAX_MEMORY_SIZE (1 MiB) get 413 before any parsing.

    A multipart upload to a path of UPLOAD_BODY_LIMITS (the evidence of a
    dispute) is measured by its Content-Length against its own limit instead,
    and left unread: the multipart parser streams its files (to disk past
    FILE_UPLOAD_MAX_MEMORY_SIZE) and still holds its text fields to the 1 MiB
    limit. The server never reads past Content-Length."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.method in ("POST", "PUT", "PATCH", "DELETE"):
            limit = upload_limit(request)
            if limit is not None:
                try:
                    length = int(request.META.get("CONTENT_LENGTH") or 0)
                except ValueError:
                    length = 0
                if length > limit:
                    return _too_large(limit)
                return self.get_response(request)
            try:
                request.body  # noqa: B018 - reading enforces the size limit
            except RequestDataTooBig:
                return _too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE)
        return self.get_response(request)


class ApiErrorMiddleware:
    """Under /api/, Django-level 404s and unhandled errors are JSON too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if (
            request.path.startswith(API_PREFIX)
            and response.status_code == 404
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return JsonResponse(
                {"detail": f"No API endpoint at {request.method} {request.path}."},
                status=404,
            )
        return response

    def process_exception(self, request, exception):
        if not request.path.startswith(API_PREFIX):
            return None
        logger.exception("Unhandled error on %s %s", request.method, request.path)
        return HttpResponse(
            json.dumps(internal_error_body()),
            status=500,
            content_type="application/json",
        )
