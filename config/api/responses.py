"""The success envelope `{"ok": true, "data": ..., <siblings>}` (spec, Conventions)."""

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
