"""`?limit=` (default 50, max 100) and `?offset=` on every list; lists carry `total`."""

import re
from collections.abc import Callable
from dataclasses import dataclass

from rest_framework.exceptions import ValidationError
from rest_framework.response import Response

from . import responses

DEFAULT_LIMIT = 50
MAX_LIMIT = 100
_INTEGER = re.compile(r"-?[0-9]+")


@dataclass(frozen=True)
class Page:
    items: list
    total: int


def _int_param(request, name: str, default: int, low: int, high: int | None) -> int:
    raw = request.query_params.get(name)
    if raw is None:
        return default
    # ASCII digits only: int() would also take " 5", "5_0" and other scripts' digits.
    try:
        if not _INTEGER.fullmatch(raw):
            raise ValueError(raw)
        # int() refuses numbers past 4300 digits with a ValueError too.
        value = int(raw)
    except ValueError:
        raise ValidationError({name: [f"{name} must be a whole number."]}) from None
    if value < low or (high is not None and value > high):
        bound = f"between {low} and {high}" if high is not None else f"at least {low}"
        raise ValidationError({name: [f"{name} must be {bound}."]})
    return value


def page_bounds(request) -> tuple[int, int]:
    """The request's `limit` and `offset`, checked (a 400 names a bad one)."""
    limit = _int_param(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    offset = _int_param(request, "offset", 0, 0, None)
    return limit, offset


def paginate(request, queryset) -> Page:
    """Slice a queryset (or list) by the request's limit/offset."""
    limit, offset = page_bounds(request)
    total = len(queryset) if isinstance(queryset, list) else queryset.count()
    if offset >= total:
        # Past the end; also keeps an enormous offset out of SQL, where it would
        # overflow the database's integer.
        return Page(items=[], total=total)
    return Page(items=list(queryset[offset : offset + limit]), total=total)


def paginated(request, queryset, output: Callable[[object], dict]) -> Response:
    """A list endpoint's answer: the request's page, each item through `output`,
    and the list's `total`."""
    page = paginate(request, queryset)
    return responses.ok([output(item) for item in page.items], total=page.total)
