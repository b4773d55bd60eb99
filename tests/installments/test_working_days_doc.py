"""docs/auto-debit.md shows working days and paydays as the rules compute them
(DESIGN section 15); keep it true."""

import re
from datetime import date, datetime
from pathlib import Path

from installments.plans import rules

DOC = (Path(__file__).resolve().parents[2] / "docs" / "auto-debit.md").read_text()
SECTION = DOC.split("### Working days and payday")[1].split("\n### ")[0]
WEEKDAY = r"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day"


def day_of(text: str) -> date:
    return datetime.strptime(text, "%A %d %B %Y").date()


def test_the_working_day_examples_are_the_rules():
    rows = re.findall(
        rf"^\| ({WEEKDAY} \d+ \w+ \d{{4}}) \| ({WEEKDAY} \d+ \w+ \d{{4}}) \|",
        SECTION,
        re.M,
    )

    assert len(rows) == 4
    assert ("Thursday 1 October 2026", "Friday 2 October 2026") in rows
    for calendar_day, used in rows:
        assert rules.working_day_on_or_after(day_of(calendar_day)) == day_of(used)


def test_the_payday_example_is_the_rules():
    assert (
        "Paid on 20 December 2025, a plan of 12 monthly installments on the 25th"
        in SECTION
    )
    rows = re.findall(
        rf"^\| (?:(\w+) (\d{{4}})|(\w+)) \| ({WEEKDAY}) (\d+) (\w+) \|", SECTION, re.M
    )
    year, shown = None, []
    for month, first_year, later_month, weekday, day, month_name in rows:
        year = int(first_year) if first_year else year
        assert (month or later_month) == month_name
        due = datetime.strptime(f"{day} {month_name} {year}", "%d %B %Y").date()
        assert due.strftime("%A") == weekday
        shown.append(due)

    assert shown == list(
        rules.due_dates(
            start=date(2025, 12, 20),
            schedule_type="monthly",
            count=12,
            preferred_day=25,
        )
    )


def test_retries_keep_their_days():
    assert "whatever day of the week the retry falls on" in SECTION
