"""Request id, the 1 MiB body limit, and JSON answers for failures outside DRF."""

import json
import logging
import re

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


# The uploads allowed more than 1 MiB: a dispute's evidence (DESIGN section
# 19), up to 5 files of 5 MiB and the text fields, sent as multipart/form-data
# (whose files Django streams to disk rather than reading the body at once).
EVIDENCE_BODY_LIMIT = 26 * 1024 * 1024
LARGE_UPLOADS = re.compile(
    r"^(/api/v1/disputes/[^/]+/evidence|/dashboard/disputes/[^/]+/answer/)$"
)


def _large_upload_size(request) -> int | None:
    """The declared size of an evidence upload, None for any other request."""
    if request.method != "POST" or not LARGE_UPLOADS.match(request.path_info):
        return None
    if request.content_type != "multipart/form-data":
        return None
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return None


class BodySizeLimitMiddleware:
    """Bodies over DATA_UPLOAD_MAX_MEMORY_SIZE (1 MiB) get 413 before any
    parsing; a dispute's evidence upload may be up to 26 MiB."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        upload = _large_upload_size(request)
        if upload is not None:
            if upload > EVIDENCE_BODY_LIMIT:
                return JsonResponse(
                    {"detail": "Request body too large: the limit is 26 MiB."},
                    status=413,
                )
        elif request.method in ("POST", "PUT", "PATCH", "DELETE"):
            try:
                request.body  # noqa: B018 - reading enforces the size limit
            except RequestDataTooBig:
                return JsonResponse(
                    {"detail": "Request body too large: the limit is 1 MiB."},
                    status=413,
                )
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
