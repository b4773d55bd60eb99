"""Properties of the plan rules over amounts, counts, schedules, scores and dates."""

import calendar
from dataclasses import replace
from datetime import date, timedelta
from functools import cache

import holidays
from hypothesis import given
from hypothesis import strategies as st

from installments.plans import rules
from installments.plans.rules import PlanConfig

amounts = st.integers(min_value=rules.MIN_AMOUNT, max_value=rules.MAX_AMOUNT)
eligible_scores = st.integers(min_value=300, max_value=1000)
schedules = st.sampled_from(rules.SCHEDULE_TYPES)
start_dates = st.dates(min_value=date(2000, 1, 1), max_value=date(2200, 12, 31))
merchant_minimums = st.integers(min_value=0, max_value=90)


@cache
def nigerian_holidays(year: int) -> frozenset:
    return frozenset(holidays.country_holidays("NG", years=year))


def working(day: date) -> bool:
    """Told from the package directly, not through the rules' own helpers."""
    return day.weekday() < 5 and day not in nigerian_holidays(day.year)


def month_index(day: date) -> int:
    return day.year * 12 + day.month


def days_in_month(day: date) -> int:
    return calendar.monthrange(day.year, day.month)[1]


@st.composite
def plans(draw):
    score = draw(eligible_scores)
    schedule = draw(schedules)
    config = PlanConfig(
        allowed_schedule_types=(schedule,),
        min_installments=1,
        max_installments=12,
        min_deposit_percent=draw(merchant_minimums),
    )
    highest = rules.installment_bounds(rules.tier_for(score), config)[1]
    count = draw(st.integers(min_value=1, max_value=highest))
    amount = draw(amounts)
    start = draw(start_dates)
    terms = rules.plan_terms(
        amount=amount,
        score=score,
        schedule_type=schedule,
        installment_count=count,
        config=config,
        start=start,
    )
    return amount, score, config, start, terms


@given(plans())
def test_deposit_plus_installments_is_the_total(plan):
    amount, _, _, _, terms = plan

    assert terms.deposit_amount + sum(terms.installment_amounts) == amount
    assert terms.total_amount == amount
    assert len(terms.installment_amounts) == terms.installment_count


@given(plans())
def test_installments_differ_by_at_most_one_kobo_larger_ones_first(plan):
    *_, terms = plan
    amounts = terms.installment_amounts

    assert max(amounts) - min(amounts) <= 1
    assert list(amounts) == sorted(amounts, reverse=True)
    assert min(amounts) > 0


@given(plans())
def test_calendar_dates_strictly_increase_and_never_skip_a_month(plan):
    _, _, _, start, terms = plan
    calendar_dates = rules.calendar_dates(
        start=start, schedule_type=terms.schedule_type, count=terms.installment_count
    )
    days = [start, *calendar_dates]

    assert all(later > earlier for earlier, later in zip(days, days[1:]))
    assert all(
        month_index(later) - month_index(earlier) <= 1
        for earlier, later in zip(days, days[1:])
    )
    if terms.schedule_type == "monthly":
        assert all(
            month_index(later) - month_index(earlier) == 1
            for earlier, later in zip(days, days[1:])
        )
        assert all(day.day == min(start.day, days_in_month(day)) for day in days)


@given(plans())
def test_due_dates_are_the_first_working_day_from_each_calendar_date(plan):
    """DESIGN 15: a calendar date on a weekend or a Nigerian public holiday moves
    forward to the next working day, and only that far."""
    _, _, _, start, terms = plan
    calendar_dates = rules.calendar_dates(
        start=start, schedule_type=terms.schedule_type, count=terms.installment_count
    )
    days = [start, *terms.due_dates]

    assert all(later > earlier for earlier, later in zip(days, days[1:]))
    for calendar_day, due in zip(calendar_dates, terms.due_dates, strict=True):
        assert due >= calendar_day
        assert working(due)
        skipped = (
            calendar_day + timedelta(days=n) for n in range((due - calendar_day).days)
        )
        assert not any(working(day) for day in skipped)


@given(plans())
def test_deposit_percent_is_the_tier_or_the_merchant_minimum_whichever_is_higher(plan):
    amount, score, config, _, terms = plan
    tier = rules.tier_for(score)
    percent = max(tier.deposit_percent, config.min_deposit_percent)

    assert terms.deposit_percent == percent
    assert terms.tier == tier.name
    # ceil(amount * percent / 100), checked without division
    assert terms.deposit_amount * 100 >= amount * percent
    assert (terms.deposit_amount - 1) * 100 < amount * percent


@given(start=start_dates, months=st.integers(min_value=0, max_value=24))
def test_monthly_due_day_is_the_original_day_unless_the_month_is_shorter(start, months):
    due = rules.add_months(start, months)

    assert month_index(due) - month_index(start) == months
    assert due.day == min(start.day, days_in_month(due))


counts = st.integers(min_value=0, max_value=50)


@given(
    st.builds(
        rules.CustomerHistory,
        paid_first_attempt=counts,
        paid_after_retry=counts,
        failed_attempts_last_180_days=counts,
        completed_plans=counts,
        defaulted_plans=counts,
        revoked_methods_last_90_days=counts,
    )
)
def test_score_stays_within_0_and_1000_and_a_good_payment_never_lowers_it(history):
    score = rules.customer_score(history)
    better = replace(history, paid_first_attempt=history.paid_first_attempt + 1)
    worse = replace(history, defaulted_plans=history.defaulted_plans + 1)

    assert 0 <= score <= 1000
    assert rules.customer_score(better) >= score >= rules.customer_score(worse)


# --- preferred day (DESIGN 15) ---------------------------------------------------

preferred_days = st.one_of(
    st.integers(min_value=1, max_value=28), st.just(rules.LAST_WORKING_DAY)
)


def days_between(first: date, end: date):
    """first, first + 1 day, ... up to the day before `end`."""
    return (first + timedelta(days=n) for n in range((end - first).days))


def month_start(index: int) -> date:
    year, month = divmod(index - 1, 12)
    return date(year, month + 1, 1)


def payday_month(due: date, preferred_day) -> int:
    """The month whose payday `due` is: a day moved forward past the month's end
    (the 28th on a Saturday) still belongs to the month it was moved from."""
    if preferred_day == rules.LAST_WORKING_DAY or due.day >= preferred_day:
        return month_index(due)
    return month_index(due) - 1


@given(start=start_dates, preferred_day=preferred_days, count=st.integers(1, 12))
def test_paydays_fall_on_the_preferred_day_of_consecutive_months(
    start, preferred_day, count
):
    dues = rules.due_dates(
        start=start, schedule_type="monthly", count=count, preferred_day=preferred_day
    )
    first_month = payday_month(dues[0], preferred_day)

    assert len(dues) == count
    assert all(later > earlier for earlier, later in zip([start, *dues], dues))
    for k, due in enumerate(dues):
        index = first_month + k
        assert payday_month(due, preferred_day) == index
        assert working(due)
        if preferred_day == rules.LAST_WORKING_DAY:
            # No working day after it in its month.
            assert not any(
                working(day)
                for day in days_between(due + timedelta(days=1), month_start(index + 1))
            )
        else:
            # On the day, or moved forward over days that are not working days.
            on_the_day = month_start(index).replace(day=preferred_day)
            assert not any(working(day) for day in days_between(on_the_day, due))


@given(start=start_dates, preferred_day=preferred_days)
def test_the_first_payday_is_the_earliest_at_least_14_days_after_checkout(
    start, preferred_day
):
    [first] = rules.due_dates(
        start=start, schedule_type="monthly", count=1, preferred_day=preferred_day
    )
    earliest = start + timedelta(days=14)
    month_before = payday_month(first, preferred_day) - 1

    assert first >= earliest
    # The month before had no payday on or after `earliest`.
    if preferred_day == rules.LAST_WORKING_DAY:
        assert not any(
            working(day)
            for day in days_between(
                max(earliest, month_start(month_before)), month_start(month_before + 1)
            )
        )
    else:
        on_the_day = month_start(month_before).replace(day=preferred_day)
        assert any(working(day) for day in days_between(on_the_day, earliest))
