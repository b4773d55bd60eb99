"""The success envelope `{"ok": true, "data": ..., <siblings>}` (spec, Conventions)."""

from django.utils.cache import add_never_cache_headers
from rest_framework import status as http
from rest_framework.response import Response


def ok(data=None, *, status: int = http.HTTP_200_OK, headers=None, **siblings):
    body = {"ok": True}
    if data is not None:
        body["data"] = data
    body.update(siblings)
    return Response(body, status=status, headers=headers)


def created(data=None, **siblings):
    return ok(data, status=http.HTTP_201_CREATED, **siblings)


def no_store(response: Response) -> Response:
    """For an answer that carries a token, a key or a secret: no browser or proxy
    cache keeps a copy (`Cache-Control: no-store`, among Django's never-cache set)."""
    add_never_cache_headers(response)
    return response
