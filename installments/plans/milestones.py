"""A plan's milestones after a payment: completion (every installment paid or
cancelled by a refund) and the goods release (the merchant's release rule, at
most once per plan).

One function, `milestones_reach`, decides both for the deposit (one plan), for
the collection engine (a batch's plans at once) and for early payments, in the
caller's transaction, on plans the caller has locked; the caller emits what it
returns (`payment_plan.completed`, `goods.release`) in that transaction.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.db.models import Count, Q

from . import events
from .models import Installment, PaymentPlan
from .selectors import installments_paid_sums

if TYPE_CHECKING:
    from merchants.models import Merchant

RELEASE_ON_DEPOSIT = "on_deposit"
RELEASE_ON_COMPLETION = "on_completion"
PAID_STATUSES = (
    PaymentPlan.Status.ACTIVE,
    PaymentPlan.Status.COMPLETED,
    PaymentPlan.Status.DEFAULTED,
)


def release_due(
    *, rule: str, after_installments: int | None, status: str, paid: int, count: int
) -> bool:
    """The release rule on a plan with this status and `paid` of its `count`
    installments paid.

    `on_deposit`: once the deposit is paid. `after_installments:N`: once N
    installments are paid (or all of them, when the plan has fewer than N).
    `on_completion`: when the plan is completed.
    """
    if status not in PAID_STATUSES:
        return False
    if rule == RELEASE_ON_DEPOSIT:
        return True
    if rule == RELEASE_ON_COMPLETION:
        return status == PaymentPlan.Status.COMPLETED
    if after_installments is None:
        return False
    # A completed plan whose refunds cancelled some installments has fewer
    # than N paid: it has paid everything there was to pay.
    return status == PaymentPlan.Status.COMPLETED or paid >= min(
        after_installments, count
    )


def paid_counts(plan_pks: list[int]) -> dict[int, int]:
    """Paid installments per plan, for the plans that have any."""
    return {pk: paid for pk, (paid, _) in installment_counts(plan_pks).items() if paid}


def installment_counts(plan_pks: list[int]) -> dict[int, tuple[int, int]]:
    """(paid, still to settle) installments per plan that has installments:
    still to settle is every one neither paid nor cancelled (a refund's or the
    plan's cancellation), so a plan with none left is complete."""
    Status = Installment.Status
    return {
        pk: (paid, unsettled)
        for pk, paid, unsettled in Installment.objects.filter(plan_id__in=plan_pks)
        .order_by()
        .values("plan_id")
        .annotate(
            paid=Count("id", filter=Q(status=Status.PAID)),
            unsettled=Count(
                "id", filter=~Q(status__in=(Status.PAID, Status.CANCELLED))
            ),
        )
        .values_list("plan_id", "paid", "unsettled")
    }


def goods_release_due(
    plan: PaymentPlan, *, merchant: "Merchant | None" = None, paid: int | None = None
) -> bool:
    """Whether the merchant's release rule is satisfied now (`merchant` and the
    count of `paid` installments when the caller has them)."""
    merchant = merchant or plan.merchant
    if paid is None:
        paid = paid_counts([plan.pk]).get(plan.pk, 0)
    return release_due(
        rule=merchant.release_rule,
        after_installments=merchant.release_after_installments,
        status=plan.status,
        paid=paid,
        count=plan.installment_count,
    )


@dataclass(frozen=True)
class Milestones:
    completed: list[PaymentPlan]
    released: list[PaymentPlan]
    # What the paid installments of each completed plan add up to.
    installments_paid: dict[int, int]

    def plan_events(self) -> list[tuple[PaymentPlan, events.Event]]:
        """(plan, event) for the caller to emit: `payment_plan.completed` of each
        plan completed now, then `goods.release` of each plan released now."""
        completed = [
            (
                plan,
                events.plan_completed(
                    plan, installments_paid=self.installments_paid.get(plan.pk, 0)
                ),
            )
            for plan in self.completed
        ]
        return completed + [
            (plan, events.goods_release(plan)) for plan in self.released
        ]


def milestones_reach(
    *,
    plans: list[PaymentPlan],
    at: datetime,
    merchants: Mapping[int, "Merchant"] | None = None,
) -> Milestones:
    """Complete the active plans whose installments are all paid, then mark the
    goods of every plan whose release rule is now satisfied as released (once):
    two UPDATEs at most, whatever the number of plans. `merchants` by primary
    key, when the caller loaded them (else each plan's own)."""
    counts = installment_counts([plan.pk for plan in plans])
    paid = {pk: count for pk, (count, _) in counts.items()}
    # Complete: something paid and nothing left to settle (the others may have
    # been cancelled by refunds; a plan whose unpaid installments a refund all
    # cancelled is cancelled by that refund, not completed).
    completing = [
        plan
        for plan in plans
        if plan.status == PaymentPlan.Status.ACTIVE
        and plan.pk in counts
        and counts[plan.pk][0] > 0
        and counts[plan.pk][1] == 0
    ]
    PaymentPlan.bulk_transition(completing, PaymentPlan.Status.COMPLETED, at=at)
    sums = (
        installments_paid_sums([plan.pk for plan in completing]) if completing else {}
    )
    releasing = [
        plan
        for plan in plans
        if plan.goods_released_at is None
        and goods_release_due(
            plan,
            merchant=merchants[plan.merchant_id] if merchants else None,
            paid=paid.get(plan.pk, 0),
        )
    ]
    for plan in releasing:
        plan.goods_released_at = at
    if releasing:
        PaymentPlan.objects.filter(pk__in=[plan.pk for plan in releasing]).update(
            goods_released_at=at, updated_at=at
        )
    return Milestones(completed=completing, released=releasing, installments_paid=sums)
