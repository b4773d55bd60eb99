"""What a failed attempt leads to (DESIGN sections 7 and 15): pure rules, read
by the recording of a batch (outcomes.py) and by the docs' tests.

A soft decline is retried at 10:00 Lagos on the due date + 1, 3 and 7 days; a
hard one (no method left that could pay) waits for the customer to add a
method until the day of that last retry, and at least until 10:00 the day
after the wait began; the 4th failed attempt, or a hard decline once the wait
is over, defaults. A last retry that collected part of what was owed
(partial collection, DESIGN section 15) gives the rest one more attempt, at
10:00 Lagos on the due date + 14 days; that one failing defaults.
"""

from datetime import date, datetime, time, timedelta

from django.utils import timezone

MAX_ATTEMPTS = 4
# Retry n (after the n-th failed attempt) is due this many days after the due date.
RETRY_DAYS = (1, 3, 7)
RETRY_TIME = time(10, 0)  # Lagos
# After a partial collection at the last retry, the rest is tried once more
# this many days after the due date.
PARTIAL_RETRY_DAYS = 14

RETRY, WAIT, DEFAULT = "retry", "wait", "default"


def retry_at(*, due_date: date, failed_attempts: int, pass_date: date) -> datetime:
    """10:00 Lagos on the due date + 1, 3 or 7 days; never earlier than 10:00 on
    the day after the pass (an engine that ran late tries at most once a day)."""
    day = due_date + timedelta(days=RETRY_DAYS[failed_attempts - 1])
    day = max(day, pass_date + timedelta(days=1))
    return timezone.make_aware(datetime.combine(day, RETRY_TIME))


def waiting_until(*, due_date: date, since: date) -> datetime:
    """The end of an installment's wait for a new payment method: 10:00 Lagos
    on the day of its last retry (the due date + 7 days), and never before
    10:00 the day after it began waiting (`since`), so a customer always has
    a day to act."""
    day = max(due_date + timedelta(days=RETRY_DAYS[-1]), since + timedelta(days=1))
    return timezone.make_aware(datetime.combine(day, RETRY_TIME))


def after_failure(
    *,
    attempts: int,
    retryable: bool,
    due_date: date,
    pass_date: date,
    waiting_since: date | None,
    partial: bool = False,
) -> tuple[str, datetime | None]:
    """(RETRY, WAIT or DEFAULT, the next attempt's time) after the failed
    attempt number `attempts`. `waiting_since` is the day the installment last
    began waiting for a method, if it ever did (its wait keeps that end).
    `partial`: this attempt's partial debit collected part of what was owed."""
    if partial and attempts == MAX_ATTEMPTS:
        day = max(
            due_date + timedelta(days=PARTIAL_RETRY_DAYS),
            pass_date + timedelta(days=1),
        )
        return RETRY, timezone.make_aware(datetime.combine(day, RETRY_TIME))
    if attempts >= MAX_ATTEMPTS:
        return DEFAULT, None
    if retryable:
        return RETRY, retry_at(
            due_date=due_date, failed_attempts=attempts, pass_date=pass_date
        )
    until = waiting_until(due_date=due_date, since=waiting_since or pass_date)
    if pass_date >= timezone.localdate(until):
        return DEFAULT, None  # the wait of an earlier hard decline is over
    return WAIT, until
