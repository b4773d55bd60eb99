"""The plan rules of DESIGN section 6, pinned by worked examples."""

from datetime import date

import pytest

from config.api.errors import AmountOutOfRange
from installments.plans import rules
from installments.plans.errors import (
    CustomerNotEligible,
    InvalidInstallmentCount,
    ScheduleTypeNotAllowed,
)
from installments.plans.rules import CustomerHistory, PlanConfig

ALL_SCHEDULES = PlanConfig(
    allowed_schedule_types=("monthly", "biweekly", "weekly"), max_installments=12
)


@pytest.mark.parametrize(
    ("history", "score"),
    [
        (CustomerHistory(), 500),
        (CustomerHistory(paid_first_attempt=1), 520),
        (CustomerHistory(paid_after_retry=1), 505),
        (CustomerHistory(failed_attempts_last_180_days=1), 460),
        (CustomerHistory(completed_plans=1), 550),
        (CustomerHistory(defaulted_plans=1), 300),
        (CustomerHistory(revoked_methods_last_90_days=1), 470),
        (CustomerHistory(paid_first_attempt=6, completed_plans=2), 720),
        (
            CustomerHistory(
                paid_first_attempt=3,
                paid_after_retry=2,
                failed_attempts_last_180_days=2,
                revoked_methods_last_90_days=1,
            ),
            500 + 60 + 10 - 80 - 30,
        ),
        (CustomerHistory(defaulted_plans=3), 0),
        (CustomerHistory(paid_first_attempt=30), 1000),
    ],
)
def test_score_is_the_weighted_history_clamped_to_0_1000(history, score):
    assert rules.customer_score(history) == score


def test_score_is_the_same_every_time_it_is_recomputed():
    history = CustomerHistory(paid_first_attempt=4, failed_attempts_last_180_days=1)

    assert {rules.customer_score(history) for _ in range(3)} == {540}


def test_new_customer_score_matches_the_stored_default():
    from payments.customers.models import NEW_CUSTOMER_SCORE

    assert rules.NEW_CUSTOMER_SCORE == NEW_CUSTOMER_SCORE == 500


def test_engine_schedule_types_and_maximum_match_the_merchant_settings():
    from merchants.models import MAX_INSTALLMENTS, SCHEDULE_TYPES

    assert rules.SCHEDULE_TYPES == SCHEDULE_TYPES
    assert rules.MAX_INSTALLMENTS == MAX_INSTALLMENTS


@pytest.mark.parametrize(
    ("score", "tier", "percent", "max_count"),
    [
        (1000, "A", 20, 12),
        (700, "A", 20, 12),
        (699, "B", 30, 6),
        (500, "B", 30, 6),
        (499, "C", 40, 3),
        (300, "C", 40, 3),
    ],
)
def test_tier_boundaries(score, tier, percent, max_count):
    found = rules.tier_for(score)

    assert (found.name, found.deposit_percent, found.max_installments) == (
        tier,
        percent,
        max_count,
    )


@pytest.mark.parametrize("score", [299, 0])
def test_score_below_300_is_not_eligible(score):
    with pytest.raises(CustomerNotEligible):
        rules.tier_for(score)


@pytest.mark.parametrize(
    ("start", "months", "expected"),
    [
        (date(2026, 1, 31), 1, date(2026, 2, 28)),
        (date(2026, 1, 31), 2, date(2026, 3, 31)),
        (date(2026, 1, 31), 3, date(2026, 4, 30)),
        (date(2024, 1, 31), 1, date(2024, 2, 29)),
        (date(2026, 1, 30), 1, date(2026, 2, 28)),
        (date(2026, 1, 15), 1, date(2026, 2, 15)),
        (date(2026, 11, 30), 3, date(2027, 2, 28)),
        (date(2026, 12, 31), 1, date(2027, 1, 31)),
        (date(2026, 8, 31), 12, date(2027, 8, 31)),
    ],
)
def test_add_months_clamps_to_month_end_from_the_original_day(start, months, expected):
    assert rules.add_months(start, months) == expected


# (amount, score, schedule, count, start, config,
#  deposit, installments, calendar dates, due dates)
# The calendar dates are DESIGN section 6's count of months, 14 or 7 days; the due
# dates are those moved to the next working day (section 15), where they differ.
WORKED_EXAMPLES = [
    pytest.param(
        100_001,
        500,
        "monthly",
        3,
        date(2026, 1, 31),
        PlanConfig(),
        30_001,
        (23_334, 23_333, 23_333),
        ("2026-02-28", "2026-03-31", "2026-04-30"),
        # Saturday 28 February.
        ("2026-03-02", "2026-03-31", "2026-04-30"),
        id="issue example: new customer, tier B, month-end clamping",
    ),
    pytest.param(
        1_000_000,
        800,
        "monthly",
        12,
        date(2024, 1, 31),
        ALL_SCHEDULES,
        200_000,
        (66_667,) * 8 + (66_666,) * 4,
        (
            "2024-02-29",
            "2024-03-31",
            "2024-04-30",
            "2024-05-31",
            "2024-06-30",
            "2024-07-31",
            "2024-08-31",
            "2024-09-30",
            "2024-10-31",
            "2024-11-30",
            "2024-12-31",
            "2025-01-31",
        ),
        (
            "2024-02-29",
            "2024-04-02",  # Easter Sunday 31 March, Easter Monday 1 April
            "2024-04-30",
            "2024-05-31",
            "2024-07-01",  # Sunday 30 June
            "2024-07-31",
            "2024-09-02",  # Saturday 31 August
            "2024-09-30",
            "2024-10-31",
            "2024-12-02",  # Saturday 30 November
            "2024-12-31",
            "2025-01-31",
        ),
        id="tier A, 12 months through a leap February",
    ),
    pytest.param(
        10_000,
        300,
        "biweekly",
        3,
        date(2026, 3, 10),
        ALL_SCHEDULES,
        4_000,
        (2_000, 2_000, 2_000),
        ("2026-03-24", "2026-04-07", "2026-04-21"),
        ("2026-03-24", "2026-04-07", "2026-04-21"),
        id="tier C at the minimum amount, biweekly",
    ),
    pytest.param(
        100_000,
        650,
        "weekly",
        2,
        date(2026, 12, 28),
        PlanConfig(allowed_schedule_types=("weekly",), min_deposit_percent=50),
        50_000,
        (25_000, 25_000),
        ("2027-01-04", "2027-01-11"),
        ("2027-01-04", "2027-01-11"),
        id="merchant minimum deposit above the tier, weekly across a year end",
    ),
    pytest.param(
        1_000_000_000,
        500,
        "monthly",
        6,
        date(2026, 8, 31),
        PlanConfig(),
        300_000_000,
        (116_666_667,) * 4 + (116_666_666,) * 2,
        (
            "2026-09-30",
            "2026-10-31",
            "2026-11-30",
            "2026-12-31",
            "2027-01-31",
            "2027-02-28",
        ),
        (
            "2026-09-30",
            "2026-11-02",  # Saturday 31 October
            "2026-11-30",
            "2026-12-31",
            "2027-02-01",  # Sunday 31 January
            "2027-03-01",  # Sunday 28 February
        ),
        id="maximum amount, tier B maximum count",
    ),
    pytest.param(
        10_001,
        700,
        "monthly",
        1,
        date(2026, 5, 20),
        PlanConfig(min_deposit_percent=15),
        2_001,
        (8_000,),
        ("2026-06-20",),
        ("2026-06-22",),  # Saturday 20 June
        id="tier A above a lower merchant minimum; deposit rounds up",
    ),
]


@pytest.mark.parametrize(
    (
        "amount",
        "score",
        "schedule",
        "count",
        "start",
        "config",
        "deposit",
        "installments",
        "calendar_dues",
        "dues",
    ),
    WORKED_EXAMPLES,
)
def test_worked_examples(
    amount,
    score,
    schedule,
    count,
    start,
    config,
    deposit,
    installments,
    calendar_dues,
    dues,
):
    terms = rules.plan_terms(
        amount=amount,
        score=score,
        schedule_type=schedule,
        installment_count=count,
        config=config,
        start=start,
    )

    assert terms.deposit_amount == deposit
    assert terms.installment_amounts == installments
    calendar = rules.calendar_dates(start=start, schedule_type=schedule, count=count)
    assert [day.isoformat() for day in calendar] == list(calendar_dues)
    assert [day.isoformat() for day in terms.due_dates] == list(dues)
    assert terms.total_amount == amount == deposit + sum(installments)
    assert terms.installment_count == count
    assert terms.schedule_type == schedule


def _terms(**overrides):
    arguments = {
        "amount": 100_000,
        "score": 500,
        "schedule_type": "monthly",
        "installment_count": 3,
        "config": PlanConfig(),
        "start": date(2026, 1, 1),
    } | overrides
    return rules.plan_terms(**arguments)


@pytest.mark.parametrize("amount", [9_999, 0, -1, 1_000_000_001, 10**30])
def test_amount_outside_bounds_is_refused(amount):
    with pytest.raises(AmountOutOfRange):
        _terms(amount=amount)


@pytest.mark.parametrize("amount", [10_000, 1_000_000_000])
def test_amount_bounds_are_inclusive(amount):
    assert _terms(amount=amount).total_amount == amount


def test_ineligible_customer_gets_no_plan():
    with pytest.raises(CustomerNotEligible):
        _terms(score=299)


@pytest.mark.parametrize("schedule", ["weekly", "biweekly", "daily", "MONTHLY", ""])
def test_schedule_the_merchant_does_not_offer_is_refused(schedule):
    with pytest.raises(ScheduleTypeNotAllowed) as error:
        _terms(schedule_type=schedule)
    assert "monthly" in error.value.message


@pytest.mark.parametrize(
    ("score", "config", "count"),
    [
        (500, PlanConfig(), 0),
        (500, PlanConfig(), -1),
        (500, PlanConfig(), 7),
        (800, PlanConfig(max_installments=12), 13),
        (800, PlanConfig(max_installments=4), 5),
        (300, PlanConfig(max_installments=12), 4),
        (500, PlanConfig(min_installments=3), 2),
        (300, PlanConfig(min_installments=4, max_installments=12), 3),
    ],
)
def test_installment_count_outside_the_effective_bounds_is_refused(
    score, config, count
):
    with pytest.raises(InvalidInstallmentCount):
        _terms(score=score, config=config, installment_count=count)


def test_effective_maximum_is_the_lower_of_tier_and_merchant():
    tier_a = PlanConfig(max_installments=12)

    assert _terms(score=700, config=tier_a, installment_count=12).installment_count
    assert _terms(score=699, config=tier_a, installment_count=6).installment_count
    with pytest.raises(InvalidInstallmentCount) as error:
        _terms(score=699, config=tier_a, installment_count=7)
    assert error.value.message == "installment_count must be between 1 and 6."


def test_eligibility_is_checked_before_schedule_and_count():
    with pytest.raises(CustomerNotEligible):
        _terms(score=10, schedule_type="weekly", installment_count=99)


def test_schedule_is_checked_before_count():
    with pytest.raises(ScheduleTypeNotAllowed):
        _terms(schedule_type="weekly", installment_count=99)
