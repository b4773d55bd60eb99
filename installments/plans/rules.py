"""The plan rules of DESIGN sections 6 and 15, as pure functions.

Nothing here reads the database, the clock or settings: callers pass the customer's
history (or stored score), the merchant's plan configuration and the checkout date,
and get the same answer every time. Preview, checkout completion and score
recomputation all go through this one module, so the rounding rules are written
once. Money is integer kobo throughout. Working days come from the `holidays`
package's Nigerian calendar (a pinned version: the same dates every time).
"""

import calendar
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

import holidays

from config.api.errors import AmountOutOfRange

from .errors import (
    CustomerNotEligible,
    InvalidInstallmentCount,
    InvalidPreferredDay,
    ScheduleTypeNotAllowed,
)

MIN_AMOUNT = 10_000
MAX_AMOUNT = 1_000_000_000

MIN_SCORE = 0
MAX_SCORE = 1000

MONTHLY = "monthly"
BIWEEKLY = "biweekly"
WEEKLY = "weekly"
SCHEDULE_TYPES = (MONTHLY, BIWEEKLY, WEEKLY)
MAX_INSTALLMENTS = 12


# --- score -----------------------------------------------------------------


@dataclass(frozen=True)
class CustomerHistory:
    """The counts the score is made of; the caller decides the time windows."""

    paid_first_attempt: int = 0
    paid_after_retry: int = 0
    failed_attempts_last_180_days: int = 0
    completed_plans: int = 0
    defaulted_plans: int = 0
    revoked_methods_last_90_days: int = 0


def customer_score(history: CustomerHistory) -> int:
    """0-1000, recomputed from scratch (never incremented), so recomputing is
    idempotent. A customer with no history scores 500."""
    raw = (
        500
        + 20 * history.paid_first_attempt
        + 5 * history.paid_after_retry
        - 40 * history.failed_attempts_last_180_days
        + 50 * history.completed_plans
        - 200 * history.defaulted_plans
        - 30 * history.revoked_methods_last_90_days
    )
    return max(MIN_SCORE, min(MAX_SCORE, raw))


NEW_CUSTOMER_SCORE = customer_score(CustomerHistory())


@dataclass(frozen=True)
class Tier:
    name: str
    min_score: int
    deposit_percent: int
    max_installments: int


TIERS = (
    Tier("A", 700, 20, 12),
    Tier("B", 500, 30, 6),
    Tier("C", 300, 40, 3),
)


def tier_for(score: int) -> Tier:
    """The customer's tier; below 300 no plan is offered (422)."""
    for tier in TIERS:
        if score >= tier.min_score:
            return tier
    raise CustomerNotEligible()


# --- money -------------------------------------------------------------------


def check_amount(amount: int) -> None:
    """Sessions, links and previews share these bounds (inclusive)."""
    if not MIN_AMOUNT <= amount <= MAX_AMOUNT:
        raise AmountOutOfRange()


def percent_rounded_up(amount: int, percent: int) -> int:
    """ceil(amount * percent / 100) in integers: the deposit never rounds down."""
    return -(-amount * percent // 100)


def split_evenly(total: int, parts: int) -> tuple[int, ...]:
    """`parts` amounts summing to `total`, differing by at most 1 kobo; the first
    `total % parts` carry the extra kobo."""
    base, extra = divmod(total, parts)
    return tuple(base + 1 if index < extra else base for index in range(parts))


# --- dates -------------------------------------------------------------------

# A monthly plan's preferred day: a day of the month that every month has, or the
# month's last working day. The first due date is at least this long after checkout.
PREFERRED_DAYS = range(1, 29)
LAST_WORKING_DAY = "last_working_day"
PREFERRED_DAY_NOTICE = timedelta(days=14)
PreferredDay = int | str | None


@lru_cache(maxsize=512)
def _public_holidays(year: int) -> frozenset[date]:
    """Nigeria's public holidays of `year`, observed days included (a holiday on a
    weekend is observed on the next working day), as the package knows them."""
    return frozenset(holidays.country_holidays("NG", years=year))


def is_working_day(day: date) -> bool:
    """Monday to Friday and not a Nigerian public holiday: a day direct debits run."""
    return day.weekday() < 5 and day not in _public_holidays(day.year)


def working_day_on_or_after(day: date) -> date:
    while not is_working_day(day):
        day += timedelta(days=1)
    return day


def last_working_day(year: int, month: int) -> date:
    day = date(year, month, calendar.monthrange(year, month)[1])
    while not is_working_day(day):
        day -= timedelta(days=1)
    return day


def add_months(start: date, months: int) -> date:
    """Same day `months` later, clamped to the month's last day. Always counted
    from the original day, so Jan 31 -> Feb 28 -> Mar 31 (not Mar 28)."""
    index = start.year * 12 + start.month - 1 + months
    year, month = divmod(index, 12)
    last_day = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(start.day, last_day))


def calendar_dates(*, start: date, schedule_type: str, count: int) -> tuple[date, ...]:
    """Installment k (1-based) k months, 14k days or 7k days after the checkout
    date `start` (the day the deposit is paid), before moving to a working day."""
    if schedule_type == MONTHLY:
        return tuple(add_months(start, k) for k in range(1, count + 1))
    step = {BIWEEKLY: 14, WEEKLY: 7}[schedule_type]
    return tuple(start + timedelta(days=step * k) for k in range(1, count + 1))


def payday(year: int, month: int, preferred_day: int | str) -> date:
    """The preferred day of that month, on a working day: a day of the month moves
    forward to the next working day; the last working day is what it says."""
    if preferred_day == LAST_WORKING_DAY:
        return last_working_day(year, month)
    return working_day_on_or_after(date(year, month, preferred_day))


def payday_dates(
    *, start: date, preferred_day: int | str, count: int
) -> tuple[date, ...]:
    """`count` monthly paydays, the first one at least 14 days after `start`."""
    index = start.year * 12 + start.month - 1
    earliest = start + PREFERRED_DAY_NOTICE
    while payday(index // 12, index % 12 + 1, preferred_day) < earliest:
        index += 1
    return tuple(
        payday((index + k) // 12, (index + k) % 12 + 1, preferred_day)
        for k in range(count)
    )


def due_dates(
    *,
    start: date,
    schedule_type: str,
    count: int,
    preferred_day: PreferredDay = None,
) -> tuple[date, ...]:
    """The due dates of a plan paid on `start` (DESIGN 6 and 15): every date on a
    working day, a monthly plan's snapped to its preferred day when it has one.
    The one function every due date is made by (preview, checkout, activation)."""
    if preferred_day is not None:
        return payday_dates(start=start, preferred_day=preferred_day, count=count)
    return tuple(
        working_day_on_or_after(day)
        for day in calendar_dates(start=start, schedule_type=schedule_type, count=count)
    )


def check_preferred_day(preferred_day: PreferredDay, schedule_type: str) -> None:
    """None, or 1-28 or "last_working_day" on a monthly plan (else 400)."""
    if preferred_day is None:
        return
    whole = isinstance(preferred_day, int) and not isinstance(preferred_day, bool)
    if preferred_day != LAST_WORKING_DAY and not (
        whole and preferred_day in PREFERRED_DAYS
    ):
        raise InvalidPreferredDay()
    if schedule_type != MONTHLY:
        raise InvalidPreferredDay(
            "preferred_day applies to monthly plans only; leave it out (or null) "
            f"for a {schedule_type} plan."
        )


def preferred_day_stored(preferred_day: PreferredDay) -> str:
    """How a plan stores it: "" for none, "1"-"28" or "last_working_day"."""
    return "" if preferred_day is None else str(preferred_day)


def preferred_day_loaded(stored: str) -> PreferredDay:
    if not stored:
        return None
    return stored if stored == LAST_WORKING_DAY else int(stored)


PREFERRED_DAYS_STORED = tuple(
    preferred_day_stored(day) for day in (None, *PREFERRED_DAYS, LAST_WORKING_DAY)
)


# --- plan terms ----------------------------------------------------------------


@dataclass(frozen=True)
class PlanConfig:
    """A merchant's plan configuration (merchants.Merchant carries these fields)."""

    allowed_schedule_types: tuple[str, ...] = (MONTHLY,)
    min_installments: int = 1
    max_installments: int = 6
    min_deposit_percent: int = 0

    @classmethod
    def of(cls, merchant) -> "PlanConfig":
        return cls(
            allowed_schedule_types=tuple(merchant.allowed_schedule_types),
            min_installments=merchant.min_installments,
            max_installments=merchant.max_installments,
            min_deposit_percent=merchant.min_deposit_percent,
        )


@dataclass(frozen=True)
class PlanTerms:
    schedule_type: str
    installment_count: int
    deposit_amount: int
    installment_amounts: tuple[int, ...]
    due_dates: tuple[date, ...]
    total_amount: int
    tier: str
    deposit_percent: int
    preferred_day: PreferredDay = None


def deposit_percent(tier: Tier, config: PlanConfig) -> int:
    return max(tier.deposit_percent, config.min_deposit_percent)


def installment_bounds(tier: Tier, config: PlanConfig) -> tuple[int, int]:
    """(lowest, highest) installment count; empty when lowest > highest."""
    return config.min_installments, min(tier.max_installments, config.max_installments)


def plan_terms(
    *,
    amount: int,
    score: int,
    schedule_type: str,
    installment_count: int,
    config: PlanConfig,
    start: date,
    preferred_day: PreferredDay = None,
) -> PlanTerms:
    """The deposit, installments and due dates of a plan, or the rule it breaks.

    Checked in this order: amount bounds (400), eligibility (422
    customer_not_eligible), schedule type (422 schedule_type_not_allowed),
    preferred day (400 invalid_preferred_day), installment count (422
    invalid_installment_count).
    """
    check_amount(amount)
    tier = tier_for(score)
    allowed = [kind for kind in config.allowed_schedule_types if kind in SCHEDULE_TYPES]
    if schedule_type not in allowed:
        raise ScheduleTypeNotAllowed(
            f"schedule_type must be one of: {', '.join(allowed)}."
        )
    check_preferred_day(preferred_day, schedule_type)
    lowest, highest = installment_bounds(tier, config)
    if not lowest <= installment_count <= highest:
        if lowest > highest:
            message = (
                f"No installment count is available: the merchant's minimum is "
                f"{lowest} and this customer's maximum is {highest}."
            )
        else:
            message = f"installment_count must be between {lowest} and {highest}."
        raise InvalidInstallmentCount(message)
    percent = deposit_percent(tier, config)
    deposit = percent_rounded_up(amount, percent)
    return PlanTerms(
        schedule_type=schedule_type,
        installment_count=installment_count,
        deposit_amount=deposit,
        installment_amounts=split_evenly(amount - deposit, installment_count),
        due_dates=due_dates(
            start=start,
            schedule_type=schedule_type,
            count=installment_count,
            preferred_day=preferred_day,
        ),
        total_amount=amount,
        tier=tier.name,
        deposit_percent=percent,
        preferred_day=preferred_day,
    )


# An attempt in flight (the engine's, or an early payment's) this long is
# settled by a later pass. Far beyond the processor calls' own timeouts: no
# request of it can still reach the processor, so a reference the processor does
# not know then was never charged.
LEASE = timedelta(minutes=10)
