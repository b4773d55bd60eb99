"""Reads of payment plans."""

from django.db.models import Case, F, Prefetch, Q, QuerySet, Sum, When

from config.api.ids import row_by_public_id

from . import hooks
from .errors import PlanNotFound
from .models import Installment, PaymentPlan


def plans_with_installments() -> QuerySet[PaymentPlan]:
    """Plans with what their representation shows: installments in order, and
    what the features' parts of it read (refunds newest first with their parts,
    schedule changes oldest first: hooks.py)."""
    return PaymentPlan.objects.select_related("merchant", "customer").prefetch_related(
        Prefetch("installments", queryset=Installment.objects.order_by("sequence")),
        *hooks.plan_output_prefetches(),
    )


def plan_of_merchant(merchant, plan_id: str) -> PaymentPlan:
    """The merchant's own plan; any other id (another merchant's) is a 404."""
    return _one(plans_with_installments().filter(merchant=merchant), plan_id)


def plan_of_customer(customer, plan_id: str) -> PaymentPlan:
    """The customer's own plan; any other id (another customer's) is a 404."""
    return _one(plans_with_installments().filter(customer=customer), plan_id)


def _one(queryset, plan_id: str) -> PaymentPlan:
    plan = row_by_public_id(queryset, plan_id, "plan")
    if plan is None:
        raise PlanNotFound()
    return plan


def plans_of_merchant(
    merchant, *, order_reference: str | None = None
) -> QuerySet[PaymentPlan]:
    plans = plans_with_installments().filter(merchant=merchant)
    if order_reference is not None:
        plans = plans.filter(order_reference=order_reference)
    return plans.order_by("-created_at", "-id")


def plans_of_customer(customer) -> QuerySet[PaymentPlan]:
    """What the customer's account shows: plans whose deposit was paid (also
    those cancelled since), newest first (a pending plan is an unfinished
    checkout, not a plan yet)."""
    return (
        plans_with_installments()
        .filter(customer=customer, activated_at__isnull=False)
        .order_by("-created_at", "-id")
    )


def amount_paid(plan: PaymentPlan) -> int:
    """The deposit (once collected) plus every paid installment and what
    partial collections took of the others (DESIGN section 15)."""
    if plan.activated_at is None:
        return 0
    return plan.deposit_amount + sum(
        installment.amount
        if installment.status == Installment.Status.PAID
        else installment.amount_paid
        for installment in plan.installments.all()
    )


def installments_paid_sums(plan_pks) -> dict[int, int]:
    """What the installments of each plan have collected (one grouped query):
    the paid ones, and partial collections of the others; plans without any
    are absent."""
    collected = Case(
        When(status=Installment.Status.PAID, then=F("amount")),
        default=F("amount_paid"),
    )
    return dict(
        Installment.objects.filter(
            Q(status=Installment.Status.PAID) | Q(amount_paid__gt=0),
            plan_id__in=plan_pks,
        )
        .order_by()
        .values("plan_id")
        .annotate(total=Sum(collected))
        .values_list("plan_id", "total")
    )


def amount_remaining(plan: PaymentPlan) -> int:
    """What is still to be collected: the installments neither paid nor
    cancelled, at what they owe after refunds' reductions and partial
    collections (the whole total while the deposit is unpaid)."""
    if plan.activated_at is None:
        return plan.total_amount
    return sum(
        installment.amount - installment.amount_paid
        for installment in plan.installments.all()
        if installment.status
        not in (Installment.Status.PAID, Installment.Status.CANCELLED)
    )


def next_due_installment(plan: PaymentPlan) -> Installment | None:
    """The earliest installment not yet paid (nor given up on)."""
    return next(
        (
            installment
            for installment in plan.installments.all()
            if installment.status
            in (*Installment.UNPAID, Installment.Status.PROCESSING)
        ),
        None,
    )


def installments_due(
    merchant, *, due_from=None, due_to=None, status: str = ""
) -> QuerySet[Installment]:
    """The merchant's installments due between two dates (both included, either
    open), by due date, with their plan and customer."""
    rows = Installment.objects.filter(plan__merchant=merchant).select_related(
        "plan__customer", "plan__merchant"
    )
    if due_from is not None:
        rows = rows.filter(due_date__gte=due_from)
    if due_to is not None:
        rows = rows.filter(due_date__lte=due_to)
    if status:
        rows = rows.filter(status=status)
    return rows.order_by("due_date", "plan_id", "sequence")
