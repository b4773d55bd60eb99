"""The one CSV export helper (config/exports): cells a spreadsheet would run are
neutralised, money is kobo and naira, rows stream a chunk at a time."""

import csv
import io
import re
from datetime import UTC, date, datetime
from pathlib import Path

from config.exports import (
    CHUNK_SIZE,
    Column,
    CsvExport,
    cell,
    csv_lines,
    export_filename,
    naira,
)

DOCS = Path(__file__).resolve().parents[2] / "docs"
EXPORT = CsvExport(
    "things",
    (
        Column("name", lambda row: row["name"]),
        Column("amount", lambda row: row["amount"], money=True),
    ),
)


def parsed(chunks) -> list[list[str]]:
    return list(csv.reader(io.StringIO(b"".join(chunks).decode())))


def test_cells_that_would_run_as_formulas_are_written_as_text():
    for text in ('=HYPERLINK("http://x")', "+1", "-2+3", "@SUM(A1)", "\tx", "\rx"):
        assert cell(text) == "'" + text
    assert cell("ORD-=1") == "ORD-=1"
    assert cell("") == ""


def test_numbers_dates_and_empties_keep_their_meaning():
    assert cell(-500) == -500
    assert cell(None) == ""
    assert cell(True) == "true"
    assert cell(date(2026, 3, 1)) == "2026-03-01"
    assert cell(datetime(2026, 3, 1, 9, 30, tzinfo=UTC)) == "2026-03-01T09:30:00.000Z"


def test_naira_is_exact_to_the_kobo():
    assert naira(12_345_678) == "123456.78"
    assert naira(-5) == "-0.05"
    assert naira(0) == "0.00"


def test_the_documented_naira_columns_carry_the_sign_of_the_kobo_ones():
    """docs/api.md describes the naira column as written: a negative amount
    (money out of a balance) keeps its minus sign in both columns, so the two
    add up to the same figure."""
    doc = " ".join((DOCS / "api.md").read_text().split())
    section = doc[doc.index("## CSV exports") : doc.index("## Rate limits")]

    assert "no sign" not in section
    kobo, shown = re.search(r"`(-\d+)` and `(-\d+\.\d\d)`", section).groups()
    table = parsed(csv_lines(EXPORT, [{"name": "payout", "amount": int(kobo)}]))
    assert table[1] == ["payout", kobo, shown]


def test_a_row_gives_kobo_then_naira_and_an_injected_name_is_neutralised():
    rows = [{"name": "=cmd|' /C calc'!A0", "amount": 150_050}]

    table = parsed(csv_lines(EXPORT, rows))

    assert table == [
        ["name", "amount", "amount_naira"],
        ["'=cmd|' /C calc'!A0", "150050", "1500.50"],
    ]


def test_rows_are_sent_a_chunk_at_a_time():
    rows = ({"name": f"n{i}", "amount": i} for i in range(CHUNK_SIZE * 2 + 1))

    chunks = list(csv_lines(EXPORT, rows))

    assert len(chunks) == 4  # the header, two full chunks, the rest
    assert len(parsed(chunks)) == CHUNK_SIZE * 2 + 2


def test_the_file_is_named_by_merchant_list_and_lagos_date():
    name = export_filename(merchant_id="mer_1", name="plans", today=date(2026, 5, 1))

    assert name == "mer_1_plans_2026-05-01.csv"
