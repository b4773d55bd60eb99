"""The purge: the records past the financial-records period, deleted in
bounded batches (DESIGN 18).

Each batch is one transaction: a few plans and every row of theirs (steps.py,
child rows first), or a few customers. A crash rolls the batch back whole, and
a rerun finds what is still due, so the purge is safe to run again at any time
and a second run right after a complete one deletes nothing.
"""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from ..plans.purged import PurgedRecord
from . import selectors
from .steps import CUSTOMER_STEPS, PLAN_STEPS, Batch

PLANS_PER_BATCH = 50
CUSTOMERS_PER_BATCH = 200

# (done, total, label) after each batch: the command's progress line.
Progress = Callable[[int, int, str], None]


@dataclass
class PurgeSummary:
    plans: int = 0
    customers: int = 0
    rows: Counter = field(default_factory=Counter)  # per model label

    def line(self) -> str:
        if not self.plans and not self.customers:
            return "Nothing past the records retention period."
        detail = ", ".join(f"{label} {n}" for label, n in sorted(self.rows.items()))
        return (
            f"Purged {self.plans} plan(s) and {self.customers} customer(s) past "
            f"the records retention period ({detail})."
        )


def _plans_batch(cutoff: datetime, size: int, summary: PurgeSummary) -> int:
    """One batch of plans: locked and checked due again in the transaction
    that deletes them (a refund asked for meanwhile keeps its plan)."""
    with transaction.atomic(durable=True):
        due = selectors.plans_due(cutoff).select_for_update(of=("self",))
        pks = list(due.values_list("pk", flat=True)[:size])
        if pks:
            _tombstones_write(pks)
            batch = Batch(
                plan_pks=pks,
                customer_pks=[],
                message_pks=selectors.messages_about(pks, cutoff),
                event_pks=selectors.events_about(pks, cutoff),
            )
            for step in PLAN_STEPS:
                summary.rows[step.model] += step.run(batch)
    return len(pks)


def _tombstones_write(plan_pks: list[int]) -> None:
    """Name what goes, for the ledger checks (plans/purged.py); a rerun of a
    batch rolled back writes them again."""
    now = timezone.now()
    PurgedRecord.objects.bulk_create(
        [
            PurgedRecord(public_id=public_id, purged_at=now)
            for public_id in sorted(selectors.plan_record_ids(plan_pks))
        ],
        ignore_conflicts=True,
    )


def _customers_batch(cutoff: datetime, size: int, summary: PurgeSummary) -> int:
    with transaction.atomic(durable=True):
        due = selectors.customers_due(cutoff).select_for_update(of=("self",))
        pks = list(due.values_list("pk", flat=True)[:size])
        batch = Batch(plan_pks=[], customer_pks=pks, message_pks=[], event_pks=[])
        for step in CUSTOMER_STEPS if pks else ():
            summary.rows[step.model] += step.run(batch)
    return len(pks)


def records_purge(
    *,
    now: datetime | None = None,
    plans_per_batch: int = PLANS_PER_BATCH,
    customers_per_batch: int = CUSTOMERS_PER_BATCH,
    progress: Progress | None = None,
) -> PurgeSummary:
    """Delete every plan past the period with its records, then every customer
    left with nothing (selectors.py says which)."""
    cutoff = selectors.retention_cutoff(now)
    summary = PurgeSummary()
    report = progress or (lambda done, total, label: None)

    total = selectors.plans_due(cutoff).count()
    while done := _plans_batch(cutoff, plans_per_batch, summary):
        summary.plans += done
        report(summary.plans, total, "plans")

    total = selectors.customers_due(cutoff).count()
    while done := _customers_batch(cutoff, customers_per_batch, summary):
        summary.customers += done
        report(summary.customers, total, "customers")
    return summary
