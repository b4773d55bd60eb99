"""Claims: the installments a pass takes, committed before any processor call.

A claim moves a due installment to `processing` with its next attempt number, in
one short transaction that skips rows another worker holds (`FOR UPDATE SKIP
LOCKED` on PostgreSQL; SQLite takes the whole database's write lock, so its
passes queue). `next_attempt_at` of a claimed row becomes the end of its lease:
an attempt still `processing` after that (its worker crashed, or the processor
never said) is claimed again, as the same attempt, and settled by verifying its
references before anything is charged.

An installment waiting for the customer (`action_required`, DESIGN section 15)
is claimed as soon as the customer has an active method added since it began
waiting, or when its wait ends (`next_attempt_at`); a pass without either
leaves it as it is.
"""

from dataclasses import dataclass
from datetime import date, datetime

from django.db import transaction
from django.db.models import CharField, Exists, F, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Cast, Concat
from django.utils import timezone

from payments.methods.selectors import payment_methods_added_after

from ..early.models import EarlyPaymentItem
from ..plans.models import Installment, PaymentPlan
from ..plans.rules import LEASE

Status = Installment.Status


_CLAIM_FIELDS = (
    "id",
    "public_id",
    "sequence",
    "amount",
    "currency",
    "due_date",
    "status",
    "attempts",
    "next_attempt_at",
    "status_changed_at",
    "last_failure_reason",
    "amount_paid",
    "partial_reference",
    "plan__id",
    "plan__public_id",
    "plan__order_reference",
    "plan__installment_count",
    "plan__merchant_id",
    "livemode",
    "plan__customer_id",
    "plan__customer__id",
    "plan__customer__public_id",
    "plan__collection",
)


def attempt_reference(installment_id: str, attempt: int, method_number: int = 1) -> str:
    """`<installment id>_a<attempt>` for the first payment method tried in an
    attempt, `..._a<attempt>m<k>` for the k-th: deterministic, so a lost answer
    is found again by verifying it, and never reused by a later attempt."""
    base = f"{installment_id}_a{attempt}"
    return base if method_number == 1 else f"{base}m{method_number}"


def partial_reference_of(installment_id: str, attempt: int) -> str:
    """The partial debit of an attempt (DESIGN section 15), at most one per
    installment: `<installment id>_a<attempt>p`."""
    return f"{installment_id}_a{attempt}p"


def partial_reference_expression():
    """`partial_reference_of()` of each row's own id and attempt, as SQL."""
    return Concat(
        F("public_id"),
        Value("_a"),
        Cast("attempts", output_field=CharField()),
        Value("p"),
        output_field=CharField(),
    )


def reference_expression(method_number: int):
    """`attempt_reference()` of each row's own id and attempt, as SQL, so a whole
    batch's references are written by one UPDATE."""
    suffix = f"m{method_number}" if method_number > 1 else ""
    return Concat(
        F("public_id"),
        Value("_a"),
        Cast("attempts", output_field=CharField()),
        Value(suffix),
        output_field=CharField(),
    )


@dataclass(frozen=True)
class Claim:
    """One attempt in flight, with what charging and recording it need."""

    pk: int
    public_id: str
    sequence: int
    attempt: int
    resumed: bool  # an attempt a previous pass left in flight
    amount: int  # what this attempt charges: what is still owed
    currency: str
    due_date: date
    plan_pk: int
    plan_public_id: str
    order_reference: str
    installment_count: int
    merchant_pk: int
    customer_pk: int
    customer_public_id: str
    # Partial collection (DESIGN section 15): collected so far, and the
    # installment's partial debit's reference when one was ever asked for.
    amount_paid: int = 0
    partial_reference: str = ""
    # The soft decline this attempt recorded before asking for a partial debit.
    last_failure_reason: str = ""
    # A manual plan's (DESIGN section 17): without a method to charge, the
    # customer is told the installment is due instead (charging.py).
    manual: bool = False
    # The installment's side (its plan's merchant row's, copied on the
    # installment): only that side's methods are charged, at that side's
    # processor.
    livemode: bool = True

    def reference(self, method_number: int = 1) -> str:
        return attempt_reference(self.public_id, self.attempt, method_number)

    @property
    def partial_debit_reference(self) -> str:
        """This attempt's partial debit: `<installment id>_a<attempt>p`."""
        return partial_reference_of(self.public_id, self.attempt)

    @property
    def partial_in_flight(self) -> bool:
        """This attempt asked for a partial debit (committed before the call)."""
        return self.partial_reference == self.partial_debit_reference

    @classmethod
    def of(cls, installment: Installment, *, resumed: bool) -> "Claim":
        plan = installment.plan
        return cls(
            pk=installment.pk,
            public_id=installment.public_id,
            sequence=installment.sequence,
            attempt=installment.attempts,
            resumed=resumed,
            amount=installment.amount - installment.amount_paid,
            currency=installment.currency,
            due_date=installment.due_date,
            plan_pk=plan.pk,
            plan_public_id=plan.public_id,
            order_reference=plan.order_reference,
            installment_count=plan.installment_count,
            merchant_pk=plan.merchant_id,
            customer_pk=plan.customer_id,
            customer_public_id=plan.customer.public_id,
            amount_paid=installment.amount_paid,
            partial_reference=installment.partial_reference,
            last_failure_reason=installment.last_failure_reason,
            manual=plan.collection == PaymentPlan.Collection.MANUAL,
            livemode=installment.livemode,
        )


def _of_plan(
    queryset: QuerySet[Installment], plan_pk: int | None, livemode: bool | None
) -> QuerySet[Installment]:
    """Only one plan's installments (the sandbox clock), read through the
    (plan, sequence) index; or only one side's (the schedule's pass, DESIGN
    section 21), read through the engine's indexes, which lead with the side."""
    if plan_pk is not None:
        return queryset.filter(plan_id=plan_pk)
    if livemode is not None:
        return queryset.filter(livemode=livemode)
    return queryset


def due(
    cutoff: datetime, *, plan_pk: int | None = None, livemode: bool | None = None
) -> QuerySet[Installment]:
    """Installments of active plans (of one plan: `plan_pk`) whose (first or
    next) attempt is due by then; none of a plan with an open dispute (DESIGN
    section 19)."""
    return _of_plan(
        Installment.objects.filter(
            status__in=(Status.SCHEDULED, Status.FAILED),
            next_attempt_at__lte=cutoff,
            plan__status=PaymentPlan.Status.ACTIVE,
            plan__open_disputes=0,
        ),
        plan_pk,
        livemode,
    )


def waiting(
    cutoff: datetime, *, plan_pk: int | None = None, livemode: bool | None = None
) -> QuerySet[Installment]:
    """Installments of active plans waiting for a payment method that are
    tried now: their customer added an active method since they began waiting
    (`status_changed_at`), or their wait ended by `cutoff`. Read through the
    partial index `installment_waiting`: only the waiting rows, never the
    scheduled ones. One rescheduled to a later date waits for that date."""
    new_method = payment_methods_added_after(
        customer=OuterRef("plan__customer_id"),
        after=OuterRef("status_changed_at"),
        livemode=OuterRef("livemode"),
    )
    # A waiting installment moved to a later date (reschedules/) is not tried
    # before that date, method or not; any other one is overdue already.
    return _of_plan(
        Installment.objects.filter(
            Q(next_attempt_at__lte=cutoff)
            | (Exists(new_method) & Q(due_date__lte=timezone.localdate(cutoff))),
            status=Status.ACTION_REQUIRED,
            plan__status=PaymentPlan.Status.ACTIVE,
            plan__open_disputes=0,
        ),
        plan_pk,
        livemode,
    )


def stale(
    now: datetime, *, plan_pk: int | None = None, livemode: bool | None = None
) -> QuerySet[Installment]:
    """The engine's attempts whose lease has ended while still in flight. An
    installment an early payment holds is not one: its charge has another
    reference, which only the early payment's own recovery verifies
    (early_recovery.py), so the engine never charges it under its own."""
    early = EarlyPaymentItem.objects.filter(
        installment=OuterRef("pk"), early_payment__status="processing"
    )
    return _of_plan(
        Installment.objects.filter(
            ~Exists(early), status=Status.PROCESSING, next_attempt_at__lte=now
        ),
        plan_pk,
        livemode,
    )


def _locked(queryset: QuerySet[Installment], limit: int) -> list[Installment]:
    return list(
        queryset.select_for_update(skip_locked=True, of=("self",))
        .select_related("plan__customer")
        .only(*_CLAIM_FIELDS)
        .order_by("next_attempt_at", "id")[:limit]
    )


def _claim(
    queryset: QuerySet[Installment], *, now: datetime, limit: int
) -> list[Claim]:
    """Start the next attempt of up to `limit` of these installments (oldest due
    first): `processing`, attempt number + 1, leased until `now + LEASE`."""
    with transaction.atomic(durable=True):
        rows = _locked(queryset, limit)
        for row in rows:
            row.attempts += 1
            row.next_attempt_at = now + LEASE
        Installment.bulk_transition(
            rows,
            Status.PROCESSING,
            at=now,
            same={"attempts": F("attempts") + 1, "next_attempt_at": now + LEASE},
        )
    return [Claim.of(row, resumed=False) for row in rows]


def claim_due(
    *,
    cutoff: datetime,
    now: datetime,
    limit: int,
    plan_pk: int | None = None,
    livemode: bool | None = None,
) -> list[Claim]:
    """Start the next attempt of up to `limit` installments due by `cutoff`
    (of one plan: `plan_pk`; of one side: `livemode`)."""
    if limit <= 0:
        return []
    return _claim(due(cutoff, plan_pk=plan_pk, livemode=livemode), now=now, limit=limit)


def claim_waiting(
    *,
    cutoff: datetime,
    now: datetime,
    limit: int,
    plan_pk: int | None = None,
    livemode: bool | None = None,
) -> list[Claim]:
    """Start the next attempt of up to `limit` installments waiting for a
    payment method that has come (or whose wait ended by `cutoff`)."""
    if limit <= 0:
        return []
    return _claim(
        waiting(cutoff, plan_pk=plan_pk, livemode=livemode), now=now, limit=limit
    )


def claim_now(*, installment: Installment, now: datetime) -> Claim | None:
    """Start the next attempt of this installment at once, due or not (sandbox
    time travel), if it is still as the caller read it: unpaid (`scheduled`,
    `failed` or `action_required`) after the same number of attempts, its plan
    active and not disputed. None when another caller took it first: it is in
    flight, or that caller's attempt already settled it.
    """
    queryset = Installment.objects.filter(
        pk=installment.pk,
        status__in=Installment.UNPAID,
        attempts=installment.attempts,
        plan__status=PaymentPlan.Status.ACTIVE,
        plan__open_disputes=0,
    )
    claims = _claim(queryset, now=now, limit=1)
    return claims[0] if claims else None


def claim_stale(
    *,
    now: datetime,
    limit: int,
    plan_pk: int | None = None,
    livemode: bool | None = None,
) -> list[Claim]:
    """Take over up to `limit` attempts whose lease ended: the same attempt (its
    references are verified before any new charge), leased again."""
    if limit <= 0:
        return []
    with transaction.atomic(durable=True):
        rows = _locked(stale(now, plan_pk=plan_pk, livemode=livemode), limit)
        Installment.objects.filter(pk__in=[row.pk for row in rows]).update(
            next_attempt_at=now + LEASE, updated_at=now
        )
    return [Claim.of(row, resumed=True) for row in rows]
