"""CSV answers of the API's lists (DESIGN section 16): `?format=csv` or
`Accept: text/csv` on a list endpoint streams every row its filters match (not
one page) through the list's `config.exports.CsvExport`.

Content negotiation still picks the JSON renderer for such a request, so a
refusal (401, 403, 404, a bad filter) stays the JSON envelope; only the view's
success answer is the CSV stream (`CsvNegotiation`, set by `CsvListApi`).
"""

from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import JSONRenderer
from rest_framework.views import APIView

from .pagination import page_bounds

CSV_MEDIA_TYPE = "text/csv"
FORMAT_PARAM = "format"
FORMATS = ("json", "csv")


def wants_csv(request) -> bool:
    """`?format=csv`, or an Accept header that names text/csv before JSON."""
    fmt = request.query_params.get(FORMAT_PARAM)
    if fmt is not None:
        return fmt == "csv"
    accept = request.META.get("HTTP_ACCEPT", "")
    for media in accept.split(","):
        kind = media.split(";")[0].strip().lower()
        if kind == CSV_MEDIA_TYPE:
            return True
        if kind in ("application/json", "application/*"):
            return False
    return False


class CsvNegotiation(DefaultContentNegotiation):
    """A CSV request negotiates the JSON renderer: errors keep their envelope.
    A `?format=` that is neither is a 400 (DRF would answer 404)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        fmt = request.query_params.get(FORMAT_PARAM)
        if fmt is not None and fmt not in FORMATS:
            raise ValidationError({FORMAT_PARAM: ["format must be json or csv."]})
        if wants_csv(request):
            # Ignored by a CSV answer (every row), but checked all the same:
            # what the JSON answer refuses, the CSV one does not accept.
            page_bounds(request)
            return JSONRenderer(), JSONRenderer.media_type
        return super().select_renderer(request, renderers, format_suffix)


class CsvListApi(APIView):
    """A list endpoint that also answers CSV: its `get` returns
    `config.exports.csv_response(...)` when `wants_csv(request)`
    (`config.exports.csv_or_page` when the JSON answer is a plain page)."""

    content_negotiation_class = CsvNegotiation
