"""The plan rules of DESIGN section 6, as pure functions.

Nothing here reads the database, the clock or settings: callers pass the customer's
history (or stored score), the merchant's plan configuration and the checkout date,
and get the same answer every time. Preview, checkout completion and score
recomputation all go through this one module, so the rounding rules are written
once. Money is integer kobo throughout.
"""

import calendar
from dataclasses import dataclass
from datetime import date, timedelta

from config.api.errors import AmountOutOfRange

from .errors import CustomerNotEligible, InvalidInstallmentCount, ScheduleTypeNotAllowed

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


def add_months(start: date, months: int) -> date:
    """Same day `months` later, clamped to the month's last day. Always counted
    from the original day, so Jan 31 -> Feb 28 -> Mar 31 (not Mar 28)."""
    index = start.year * 12 + start.month - 1 + months
    year, month = divmod(index, 12)
    last_day = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(start.day, last_day))


def due_dates(*, start: date, schedule_type: str, count: int) -> tuple[date, ...]:
    """Installment k (1-based) is due k months, 14k days or 7k days after the
    checkout date `start` (the day the deposit is paid)."""
    if schedule_type == MONTHLY:
        return tuple(add_months(start, k) for k in range(1, count + 1))
    step = {BIWEEKLY: 14, WEEKLY: 7}[schedule_type]
    return tuple(start + timedelta(days=step * k) for k in range(1, count + 1))


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
) -> PlanTerms:
    """The deposit, installments and due dates of a plan, or the rule it breaks.

    Checked in this order: amount bounds (400), eligibility (422
    customer_not_eligible), schedule type (422 schedule_type_not_allowed),
    installment count (422 invalid_installment_count).
    """
    check_amount(amount)
    tier = tier_for(score)
    allowed = [kind for kind in config.allowed_schedule_types if kind in SCHEDULE_TYPES]
    if schedule_type not in allowed:
        raise ScheduleTypeNotAllowed(
            f"schedule_type must be one of: {', '.join(allowed)}."
        )
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
            start=start, schedule_type=schedule_type, count=installment_count
        ),
        total_amount=amount,
        tier=tier.name,
        deposit_percent=percent,
    )
