"""Reads of the dashboard's plan pages, scoped to one merchant (DESIGN §12),
and what its refund pages show of a refund before and after (DESIGN §14).

Kept apart from `selectors.py` (the API's reads): the dashboard searches and
filters, the API does not.
"""

import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import Case, IntegerField, Prefetch, Q, QuerySet, Value, When

from payments.ledger import selectors as ledger_selectors
from payments.ledger.fees import fee_given_back

from ..cancellation.services import OPEN_INSTALLMENT_STATUSES
from ..deposits.models import DepositAttempt
from ..disputes.models import Dispute
from ..plans.models import Installment, PaymentPlan
from ..plans.selectors import plans_with_installments
from ..refunds import allocation
from ..refunds import selectors as refund_selectors
from ..refunds.models import Refund, RefundReduction

if TYPE_CHECKING:
    from payments.ledger.models import LedgerTransaction

# The namespace of the refund keys the dashboard makes (uuid5).
DASHBOARD_REFUND_KEYS = uuid.UUID("4f1b1f4e-8f55-4d1e-9a57-6b1c2a3d9e10")


def plans_search(
    merchant, *, query: str = "", status: str = ""
) -> QuerySet[PaymentPlan]:
    """The merchant's plans, newest first. `query` matches the order reference
    (any part of it, ignoring case) or a plan id exactly; `status` one status."""
    plans = plans_with_installments().filter(merchant=merchant)
    if query:
        plans = plans.filter(Q(order_reference__icontains=query) | Q(public_id=query))
    if status:
        plans = plans.filter(status=status)
    return plans.order_by("-created_at", "-id")


def plan_history(plan: PaymentPlan) -> dict:
    """What the plan page shows besides the plan: its installments (each with
    `reduced_by`, what refunds took off it), deposit attempts, the status
    changes of each installment, and the plan's history (its status changes
    and reschedules), oldest first."""
    installments = list(
        plan.installments.prefetch_related(
            Prefetch("status_changes", to_attr="history")
        ).order_by("sequence")
    )
    for installment in installments:
        # What refunds took off it (a cancellation leaves the amount as it was).
        installment.reduced_by = installment.original_amount - installment.amount
    return {
        "installments": installments,
        "deposit_attempts": list(
            DepositAttempt.objects.filter(plan=plan).order_by("number")
        ),
        "history": plan_history_entries(plan),
    }


def plan_history_entries(plan: PaymentPlan) -> list[dict]:
    """The plan's status changes and schedule changes (reschedules), oldest
    first: `{at, change}` or `{at, reschedule}`."""
    entries = [
        {"at": change.changed_at, "change": change}
        for change in plan.status_changes.order_by("changed_at", "id")
    ] + [
        {"at": reschedule.created_at, "reschedule": reschedule}
        for reschedule in plan.reschedules.select_related("installment")
    ]
    return sorted(entries, key=lambda entry: entry["at"])


# --- refunds (DESIGN section 14) ----------------------------------------------


def refunds_listed(plan: PaymentPlan) -> QuerySet[Refund]:
    """The plan's refunds newest first, with their parts and reductions."""
    return refund_selectors.refunds_of_plan(plan).prefetch_related(
        Prefetch(
            "reductions",
            queryset=RefundReduction.objects.select_related("installment").order_by(
                "-installment__sequence"
            ),
        )
    )


def refundable_now(plan: PaymentPlan) -> int:
    """What a refund could take off the plan now (the refund form says so):
    its unpaid installments and what its collections have left, at most the
    total less what was refunded."""
    rows = Installment.objects.filter(plan=plan, status__in=OPEN_INSTALLMENT_STATUSES)
    return allocation.refundable_now(
        refund_selectors.owed_of(rows),
        refund_selectors.plan_collected(plan),
        plan.total_amount - plan.amount_refunded,
    )


@dataclass(frozen=True)
class ReductionLine:
    """An unpaid installment a refund would reduce (no money moves)."""

    installment: Installment
    amount: int
    owed_after: int
    cancels: bool


@dataclass(frozen=True)
class PartLine:
    """A collection a refund would pay money back against."""

    reference: str
    collection: "LedgerTransaction | None"
    left_before: int
    amount: int
    fee_back: int  # the platform fee given back on it

    @property
    def from_wallet(self) -> int:
        return self.amount - self.fee_back


@dataclass(frozen=True)
class RefundPreview:
    """What the confirmation page shows of an allocation, before anything moves."""

    amount: int
    reductions: list[ReductionLine]
    parts: list[PartLine]

    @property
    def reduced(self) -> int:
        return sum(line.amount for line in self.reductions)

    @property
    def returned(self) -> int:
        return sum(line.amount for line in self.parts)

    @property
    def fee_back(self) -> int:
        return sum(line.fee_back for line in self.parts)

    @property
    def from_wallet(self) -> int:
        return self.returned - self.fee_back


def refund_preview_lines(plan: PaymentPlan, amount: int) -> RefundPreview:
    """`refund_preview` (read only, no lock) as the confirmation page shows it:
    the installments reduced and the collections refunded, with the fee given
    back and what leaves the merchant's wallet. Raises what the refund would:
    RefundExceedsRefundable, PlanBusy."""
    found = refund_selectors.refund_preview(plan, amount)
    installments = Installment.objects.in_bulk(
        [reduction.pk for reduction in found.reductions]
    )
    collections = ledger_selectors.collections_by_reference(
        part.collection_reference for part in found.parts
    )
    return RefundPreview(
        amount=amount,
        reductions=[
            ReductionLine(
                installment=installments[reduction.pk],
                amount=reduction.amount,
                owed_after=installments[reduction.pk].amount - reduction.amount,
                cancels=reduction.cancels,
            )
            for reduction in found.reductions
        ],
        parts=[
            PartLine(
                reference=part.collection_reference,
                collection=collections.get(part.collection_reference),
                left_before=part.left_before,
                amount=part.amount,
                fee_back=fee_given_back(
                    remaining=part.left_before, refunded=part.amount
                ),
            )
            for part in found.parts
        ],
    )


def refund_confirmation_key(plan: PaymentPlan, amount: int, reason: str) -> uuid.UUID:
    """The `Idempotency-Key` of a refund confirmed on the dashboard: the same for
    the same refund previewed again until the plan has another refund, so a
    double click, a second tab, or Back and confirm again create it once; a new
    one once it exists (the count of the plan's refunds only grows)."""
    count = Refund.objects.filter(plan=plan).count()
    return uuid.uuid5(
        DASHBOARD_REFUND_KEYS, f"{plan.public_id}\n{count}\n{amount}\n{reason}"
    )


# --- disputes (DESIGN section 19) ---------------------------------------------


def disputes_listed(merchant, *, status: str = "") -> QuerySet[Dispute]:
    """The merchant's disputes: the open ones first, each group by its
    deadline, nearest first; `status` one status."""
    disputes = Dispute.objects.filter(merchant=merchant).select_related("plan")
    if status:
        disputes = disputes.filter(status=status)
    return disputes.annotate(
        closed=Case(
            When(status__in=Dispute.OPEN, then=Value(0)),
            default=Value(1),
            output_field=IntegerField(),
        )
    ).order_by("closed", "due_at", "id")


def plan_disputes(plan: PaymentPlan) -> list[Dispute]:
    return list(
        Dispute.objects.filter(plan=plan)
        .select_related("installment")
        .order_by("-created_at", "-id")
    )
