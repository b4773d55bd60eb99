"""The auto-debit engine (DESIGN section 7; docs/auto-debit.md).

`collect_due()` is the pass behind the 5-minute schedule and `python manage.py
collect_installments`: claims (claims.py), processor calls outside any
transaction (charging.py), set-based recording (outcomes.py).
"""

from ..plans.rules import LEASE
from .batch import Tally
from .charging import Result
from .claims import Claim, attempt_reference
from .engine import (
    BATCH_SIZE,
    PassSummary,
    collect_due,
    due_count,
    installment_collect_now,
)
from .retries import MAX_ATTEMPTS, RETRY_DAYS, retry_at, waiting_until

__all__ = [
    "BATCH_SIZE",
    "LEASE",
    "MAX_ATTEMPTS",
    "RETRY_DAYS",
    "Claim",
    "PassSummary",
    "Result",
    "Tally",
    "attempt_reference",
    "collect_due",
    "due_count",
    "installment_collect_now",
    "retry_at",
    "waiting_until",
]
