"""Due dates on working days and on the customer's payday (DESIGN section 15),
pinned by dates checked against a calendar by hand.

Nigerian public holidays used below, as the `holidays` package has them: 2026:
1 Jan, 19-20 Mar (Eid al-Fitr), 3 and 6 Apr (Easter), 1 May, 28-29 May (Eid
al-Adha, estimated), 12 Jun, 26 Aug, 1 Oct (Independence Day), 25 Dec, 26 Dec
(a Saturday, observed Monday 28 Dec). 2027: 1 May (a Saturday, observed Monday 3
May). 2028: 27-29 Feb (Eid al-Fitr, estimated).
"""

from datetime import date

import pytest

from installments.plans import rules
from installments.plans.errors import (
    InvalidInstallmentCount,
    InvalidPreferredDay,
    ScheduleTypeNotAllowed,
)
from installments.plans.rules import LAST_WORKING_DAY, PlanConfig

ALL_SCHEDULES = PlanConfig(
    allowed_schedule_types=("monthly", "biweekly", "weekly"), max_installments=12
)


def dues(start, schedule="monthly", count=12, preferred_day=None) -> list[str]:
    return [
        day.isoformat()
        for day in rules.plan_terms(
            amount=1_000_000,
            score=800,
            schedule_type=schedule,
            installment_count=count,
            config=ALL_SCHEDULES,
            start=start,
            preferred_day=preferred_day,
        ).due_dates
    ]


# --- working days ------------------------------------------------------------------


def test_independence_day_is_not_a_working_day():
    assert date(2026, 10, 1).weekday() == 3  # a Thursday
    assert not rules.is_working_day(date(2026, 10, 1))
    assert rules.working_day_on_or_after(date(2026, 10, 1)) == date(2026, 10, 2)


@pytest.mark.parametrize(
    ("start", "schedule"),
    [
        (date(2026, 9, 1), "monthly"),  # 1 month later
        (date(2026, 9, 17), "biweekly"),  # 14 days later
        (date(2026, 9, 24), "weekly"),  # 7 days later
    ],
)
def test_a_due_date_on_independence_day_moves_to_friday_2_october(start, schedule):
    assert dues(start, schedule, count=1) == ["2026-10-02"]


@pytest.mark.parametrize(
    ("saturday", "working_day"),
    [
        (date(2026, 6, 20), date(2026, 6, 22)),  # to Monday
        (date(2026, 3, 28), date(2026, 3, 30)),  # to Monday
        # Boxing Day on a Saturday is observed on Monday 28 December: Tuesday.
        (date(2026, 12, 26), date(2026, 12, 29)),
        # Workers' Day on a Saturday is observed on Monday 3 May: Tuesday.
        (date(2027, 5, 1), date(2027, 5, 4)),
    ],
)
def test_a_saturday_moves_to_the_next_working_day(saturday, working_day):
    assert saturday.weekday() == 5
    assert rules.working_day_on_or_after(saturday) == working_day
    # As the due date of a plan whose calendar date it is (a month on).
    start = rules.add_months(saturday, -1)
    assert dues(start, count=1) == [working_day.isoformat()]


def test_a_sunday_and_a_friday_holiday_move_to_monday():
    assert rules.working_day_on_or_after(date(2026, 1, 25)) == date(2026, 1, 26)
    # Good Friday, then the weekend, then Easter Monday.
    assert rules.working_day_on_or_after(date(2026, 4, 3)) == date(2026, 4, 7)


def test_a_working_day_stays_where_it_is():
    assert rules.working_day_on_or_after(date(2026, 10, 2)) == date(2026, 10, 2)


def test_weekly_plans_move_off_weekends_and_holidays():
    # From Saturday 31 January 2026: every calendar date is a Saturday.
    assert dues(date(2026, 1, 31), "weekly", count=4) == [
        "2026-02-09",
        "2026-02-16",
        "2026-02-23",
        "2026-03-02",
    ]
    # From Thursday 12 March 2026: Eid al-Fitr on Thursday 19 March (and Friday 20).
    assert dues(date(2026, 3, 12), "weekly", count=3) == [
        "2026-03-23",
        "2026-03-26",
        "2026-04-02",
    ]


def test_biweekly_plans_move_off_weekends_and_holidays():
    # From Saturday 12 December 2026: Boxing Day (Saturday 26 December, observed
    # on Monday 28), then Saturday 9 January 2027.
    assert dues(date(2026, 12, 12), "biweekly", count=2) == [
        "2026-12-29",
        "2027-01-11",
    ]
    # From Friday 20 March 2026: Good Friday 3 April, then Friday 17 April.
    assert dues(date(2026, 3, 20), "biweekly", count=2) == [
        "2026-04-07",
        "2026-04-17",
    ]


# --- the preferred day: every month of 2026 ---------------------------------------

# Checkout on Saturday 20 December 2025: the first payday is at least 14 days later
# (3 January 2026), so each plan's 12 installments are those of January to
# December 2026 (December 2025's are too soon).
CHECKOUT = date(2025, 12, 20)

PAYDAYS_2026 = {
    25: [
        "2026-01-26",  # Sunday 25th
        "2026-02-25",
        "2026-03-25",
        "2026-04-27",  # Saturday 25th
        "2026-05-25",
        "2026-06-25",
        "2026-07-27",  # Saturday 25th
        "2026-08-25",
        "2026-09-25",
        "2026-10-26",  # Sunday 25th
        "2026-11-25",
        "2026-12-29",  # Christmas (Fri), Boxing Day (Sat, observed Mon 28th)
    ],
    28: [
        "2026-01-28",
        "2026-03-02",  # Saturday 28 February: February's payday is in March
        "2026-03-30",  # Saturday 28th
        "2026-04-28",
        "2026-06-01",  # Eid al-Adha Thursday 28th and Friday 29th, a weekend
        "2026-06-29",  # Sunday 28th
        "2026-07-28",
        "2026-08-28",
        "2026-09-28",
        "2026-10-28",
        "2026-11-30",  # Saturday 28th
        "2026-12-29",  # Monday 28th: Boxing Day observed
    ],
    LAST_WORKING_DAY: [
        "2026-01-30",  # Saturday 31st
        "2026-02-27",  # Saturday 28th
        "2026-03-31",
        "2026-04-30",
        "2026-05-27",  # a weekend, before it Eid al-Adha on the 28th and 29th
        "2026-06-30",
        "2026-07-31",
        "2026-08-31",
        "2026-09-30",
        "2026-10-30",  # Saturday 31st
        "2026-11-30",
        "2026-12-31",
    ],
}


@pytest.mark.parametrize("preferred_day", list(PAYDAYS_2026))
def test_paydays_of_every_month_of_2026(preferred_day):
    assert dues(CHECKOUT, preferred_day=preferred_day) == PAYDAYS_2026[preferred_day]


def test_the_first_of_the_month_skips_new_years_day_and_weekends():
    assert dues(date(2026, 9, 1), count=4, preferred_day=1) == [
        "2026-10-02",  # Independence Day, Thursday 1 October
        "2026-11-02",  # Sunday 1st
        "2026-12-01",
        "2027-01-04",  # New Year's Day (Friday), then the weekend
    ]


def test_a_leap_february_ending_in_eid_al_fitr():
    # 2028: Eid al-Fitr (estimated) Sunday 27 February, its holiday Monday 28th,
    # observed Tuesday 29th.
    assert dues(date(2028, 1, 20), count=2, preferred_day=28) == [
        "2028-03-01",
        "2028-03-28",
    ]
    assert dues(date(2028, 1, 20), count=2, preferred_day=LAST_WORKING_DAY) == [
        "2028-02-25",  # Friday
        "2028-03-31",
    ]
    assert dues(date(2028, 1, 29), count=1) == ["2028-03-01"]  # the 29th


# --- the first payday is at least 14 days after checkout ---------------------------


@pytest.mark.parametrize(
    ("checkout", "preferred_day", "first"),
    [
        # 14 days exactly: this month's.
        (date(2026, 3, 11), 25, "2026-03-25"),
        # 13 days: next month's (Saturday 25 April, so Monday 27).
        (date(2026, 3, 12), 25, "2026-04-27"),
        (date(2026, 3, 17), LAST_WORKING_DAY, "2026-03-31"),
        (date(2026, 3, 18), LAST_WORKING_DAY, "2026-04-30"),
        # Sunday 5 April, Easter Monday 6th: Tuesday 7th, 18 days on.
        (date(2026, 3, 20), 5, "2026-04-07"),
        # 8 April is 13 days after 26 March: May's.
        (date(2026, 3, 26), 8, "2026-05-08"),
    ],
)
def test_the_first_payday_is_at_least_14_days_after_checkout(
    checkout, preferred_day, first
):
    [due] = dues(checkout, count=1, preferred_day=preferred_day)

    assert due == first
    assert (date.fromisoformat(due) - checkout).days >= 14


def test_a_payday_moved_off_a_weekend_counts_from_its_real_date():
    # 28 February 2026 is a Saturday: the real date, Monday 2 March, is 15 days
    # after a checkout on 15 February, so it is the first payday.
    assert dues(date(2026, 2, 15), count=2, preferred_day=28) == [
        "2026-03-02",
        "2026-03-30",
    ]


def test_without_a_preferred_day_the_first_monthly_date_is_a_month_on():
    assert dues(date(2026, 3, 11), count=1) == ["2026-04-13"]  # Saturday 11th


# --- what a preferred day may be ---------------------------------------------------


@pytest.mark.parametrize("preferred_day", [0, 29, 31, -1, "25", "last", True, 2.5])
def test_anything_but_1_to_28_or_last_working_day_is_refused(preferred_day):
    with pytest.raises(InvalidPreferredDay) as error:
        dues(CHECKOUT, count=3, preferred_day=preferred_day)

    assert error.value.http_status == 400
    assert "1 to 28" in error.value.message


@pytest.mark.parametrize("schedule", ["weekly", "biweekly"])
def test_a_preferred_day_is_for_monthly_plans_only(schedule):
    with pytest.raises(InvalidPreferredDay) as error:
        dues(CHECKOUT, schedule, count=3, preferred_day=25)

    assert "monthly plans only" in error.value.message


def test_the_merchants_schedule_and_the_count_are_checked_around_it():
    with pytest.raises(ScheduleTypeNotAllowed):
        rules.plan_terms(
            amount=100_000,
            score=500,
            schedule_type="weekly",
            installment_count=3,
            config=PlanConfig(),
            start=CHECKOUT,
            preferred_day=25,
        )
    with pytest.raises(InvalidInstallmentCount):
        dues(CHECKOUT, count=13, preferred_day=25)


@pytest.mark.parametrize("preferred_day", [None, 1, 28, LAST_WORKING_DAY])
def test_a_plan_stores_and_reads_back_its_preferred_day(preferred_day):
    stored = rules.preferred_day_stored(preferred_day)

    assert isinstance(stored, str)
    assert rules.preferred_day_loaded(stored) == preferred_day
