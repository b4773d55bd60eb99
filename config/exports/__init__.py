"""CSV exports of the merchant's lists (DESIGN section 16), written once.

A list declares its columns once (`CsvExport`, in the app that owns the rows);
`csv_response` streams its rows from a server-side cursor, so memory stays flat
however many rows there are. Every export follows the same rules (docs/api.md,
"CSV exports"):

- money: the integer of kobo under the API's field name, then the same amount
  in naira (`<name>_naira`, `1234.56`, a point and two decimals, no thousands
  separator) with the same sign (`-117000`, `-1170.00`), so a spreadsheet can
  add either up;
- timestamps: ISO 8601 in UTC ending in `Z`, as in JSON; dates `YYYY-MM-DD`;
- a cell a spreadsheet would run as a formula (starting with `=`, `+`, `-`, `@`,
  a tab or a carriage return) is written with a `'` in front;
- the file is named `<merchant id>_<list>_<YYYY-MM-DD>.csv` (Lagos date).
"""

import csv
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from operator import itemgetter
from zoneinfo import ZoneInfo

from django.db.models import QuerySet
from django.http import StreamingHttpResponse
from django.utils import timezone

from config.api.csv import wants_csv
from config.api.formats import iso_utc
from config.api.pagination import paginated
from config.money import CSV, format_kobo

CONTENT_TYPE = "text/csv; charset=utf-8"
# Rows fetched from the database per round trip, and written per chunk sent.
CHUNK_SIZE = 2000
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_LAGOS = ZoneInfo("Africa/Lagos")


def naira(kobo: int | None) -> str:
    """12345678 -> "123456.78" (`config.money`'s CSV style); nothing for none."""
    return "" if kobo is None else format_kobo(kobo, style=CSV)


def cell(value) -> str | int:
    """One value as the CSV shows it. Integers stay numbers (a negative amount
    is a number, not a formula); text that a spreadsheet would run is neutralised."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return value
    if isinstance(value, datetime):
        return iso_utc(value)
    if isinstance(value, date):
        return value.isoformat()
    text = str(value)
    if text.startswith(_FORMULA_STARTS):
        return "'" + text
    return text


@dataclass(frozen=True)
class Column:
    """A column: its header and how a row gives its value. `money` columns are
    kobo and are followed by the same amount in naira (`<name>_naira`)."""

    name: str
    value: Callable[[object], object]
    money: bool = False


def output_columns(*names: str, money: tuple[str, ...] = ()) -> tuple[Column, ...]:
    """Columns that are fields of an API output dict, under the same names (so
    the CSV and the JSON cannot differ)."""
    return tuple(Column(name, itemgetter(name), money=name in money) for name in names)


@dataclass(frozen=True)
class CsvExport:
    """A list's CSV: its name (in the file name) and its columns, in order."""

    name: str
    columns: tuple[Column, ...]

    def header(self) -> list[str]:
        names = []
        for column in self.columns:
            names.append(column.name)
            if column.money:
                names.append(f"{column.name}_naira")
        return names

    def row(self, item) -> list:
        values = []
        for column in self.columns:
            value = column.value(item)
            values.append(cell(value))
            if column.money:
                values.append(naira(value))
        return values


class _Line:
    """csv.writer writes into this; `write` hands the text back."""

    def write(self, text: str) -> str:
        return text


def csv_lines(export: CsvExport, rows: Iterable) -> Iterator[bytes]:
    """The header, then the rows, encoded, a chunk of rows at a time."""
    writer = csv.writer(_Line())
    yield writer.writerow(export.header()).encode()
    chunk = []
    for item in rows:
        chunk.append(writer.writerow(export.row(item)))
        if len(chunk) >= CHUNK_SIZE:
            yield "".join(chunk).encode()
            chunk = []
    if chunk:
        yield "".join(chunk).encode()


def export_filename(*, merchant_id: str, name: str, today: date | None = None) -> str:
    today = today or timezone.now().astimezone(_LAGOS).date()
    return f"{merchant_id}_{name}_{today.isoformat()}.csv"


def rows_of(rows) -> Iterator:
    """A queryset's rows from a server-side cursor (PostgreSQL), CHUNK_SIZE at a
    time; any other iterable passes through."""
    if isinstance(rows, QuerySet):
        return rows.iterator(chunk_size=CHUNK_SIZE)
    return iter(rows)


def csv_response(
    export: CsvExport,
    rows,
    *,
    merchant_id: str,
    output: Callable[[object], object] | None = None,
    name: str | None = None,
) -> StreamingHttpResponse:
    """The streamed download of `rows` (a queryset or an iterable), each through
    `output` when given (the API's output function): nothing is held but the
    chunk being sent."""
    items = rows_of(rows)
    if output is not None:
        items = map(output, items)
    response = StreamingHttpResponse(
        csv_lines(export, items), content_type=CONTENT_TYPE
    )
    filename = export_filename(merchant_id=merchant_id, name=name or export.name)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response


def csv_or_page(
    request,
    rows,
    *,
    export: CsvExport,
    merchant_id: str,
    output: Callable[[object], dict],
    csv_output: Callable[[object], object] | None = None,
):
    """An API list's answer (`config.api.csv.CsvListApi`): every one of `rows`
    as `export`'s download when the request asks for CSV, else the request's
    page of them through `output`; `csv_output`, when given, shapes the
    download's rows instead."""
    if wants_csv(request):
        return csv_response(
            export, rows, merchant_id=merchant_id, output=csv_output or output
        )
    return paginated(request, rows, output)
