"""What a reschedule may do (DESIGN section 15): pure rules, read by the service
and by the docs' tests.

Everyone: the new date is a working day after today and after the current due
date, before the next installment's date, and at most a year ahead. A customer
also: not the plan's last installment, at most `customer_reschedules_allowed`
moves per plan, each at most `reschedule_max_days` days later. A date on a
weekend or a public holiday is refused (never moved for the caller), with the
next working day named, so the date agreed is the date collected. A merchant
also gives the customer notice (DESIGN section 18): the new date is at least
`NOTICE_DAYS` days from today (`notice_refusal`), a refusal of its own
(`notice_too_short`), so a merchant sees that only the notice is missing.
"""

from dataclasses import dataclass
from datetime import date, timedelta

from ..plans.rules import is_working_day, working_day_on_or_after

CUSTOMER, MERCHANT = "customer", "merchant"
# However far a merchant moves a date: plans last at most a year.
HORIZON = timedelta(days=365)
# How much notice a merchant's move gives the customer, at least (the CBN's
# direct-debit rules want payers told of a change in advance).
NOTICE_DAYS = 14


def long_date(day: date) -> str:
    """`Saturday 5 December 2026`."""
    return f"{day:%A} {day.day} {day:%B %Y}"


@dataclass(frozen=True)
class Move:
    """An unpaid installment and where it is asked to go."""

    sequence: int
    current: date  # its due date now
    new: date
    next_due: date | None  # the following installment's, None for the last
    today: date


@dataclass(frozen=True)
class CustomerLimits:
    """The merchant's settings, and the customer's moves on this plan so far."""

    allowed: int
    used: int
    max_days: int


def customer_refusal(move: Move, limits: CustomerLimits) -> str | None:
    """Why the customer may not make this move (None: they may)."""
    if limits.allowed == 0:
        return "The merchant of this plan does not let customers move due dates."
    if limits.used >= limits.allowed:
        times = "once" if limits.allowed == 1 else f"{limits.allowed} times"
        return (
            f"You have already moved a due date of this plan {times}, as many as "
            "its merchant allows."
        )
    if move.next_due is None:
        return (
            f"Installment {move.sequence} is the plan's last: its date cannot be "
            "moved by you (ask the merchant)."
        )
    if move.new > move.current + timedelta(days=limits.max_days):
        latest = move.current + timedelta(days=limits.max_days)
        return (
            f"A due date can move at most {limits.max_days} days later: installment "
            f"{move.sequence} can move to {long_date(latest)} at the latest."
        )
    return None


def date_refusal(move: Move) -> str | None:
    """Why nobody may make this move (None: the date is acceptable)."""
    if move.new <= move.today:
        return "Choose a date after today: a due date cannot move to today or the past."
    if move.new <= move.current:
        return (
            f"Installment {move.sequence} is due on {long_date(move.current)}: a due "
            "date can only move later (to pay sooner, pay it early)."
        )
    if move.next_due is not None and move.new >= move.next_due:
        return (
            f"{long_date(move.new)} is not before the next installment's due date "
            f"({long_date(move.next_due)}): installment {move.sequence} must stay "
            "before it."
        )
    if move.new > move.today + HORIZON:
        return "Choose a date within a year from today."
    if not is_working_day(move.new):
        return (
            f"{long_date(move.new)} is not a working day (direct debits do not run "
            "on weekends and public holidays): choose "
            f"{long_date(working_day_on_or_after(move.new))} or another working day."
        )
    return None


def refusal(move: Move, *, by: str, limits: CustomerLimits | None) -> str | None:
    """Why this move is refused, for a customer (with their `limits`) or a
    merchant (None: it is allowed)."""
    if by == CUSTOMER:
        refused = customer_refusal(move, limits)
        if refused:
            return refused
    return date_refusal(move)


def earliest_with_notice(today: date) -> date:
    """The first date a merchant may move a due date to: the first working
    day at least `NOTICE_DAYS` days after `today`."""
    return working_day_on_or_after(today + timedelta(days=NOTICE_DAYS))


def notice_refusal(move: Move, *, by: str) -> str | None:
    """Why a merchant's move gives the customer too little notice (None: it
    gives enough, or the customer moves their own date, which they asked
    for). Read after `refusal`: a date that is refused anyway says why."""
    if by != MERCHANT:
        return None
    earliest = earliest_with_notice(move.today)
    if move.new >= earliest:
        return None
    return (
        f"A due date you move must be at least {NOTICE_DAYS} days from today, so "
        "that your customer is told in advance: choose "
        f"{long_date(earliest)} or a later working day."
    )
