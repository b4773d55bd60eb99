"""Which records are past the financial-records period (DESIGN 18).

A plan ended when it reached a final status: `completed`, `cancelled`, or
`defaulted` (a defaulted plan may still be cancelled by its merchant, which
only stamps it again: the period runs from the later of the two, as
`updated_at` is refreshed by the cancellation). A `pending` plan whose deposit
was never collected ended when it was last changed. A plan is due when its end
and its last change (its row, its installments' statuses)
are all older than the period and nothing about it is still open: no refund
pending, no payment in flight.
"""

from datetime import datetime

from django.conf import settings
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from payments.customers.models import Customer, SignInCode
from payments.gateway.models import ProcessorCharge
from payments.ledger.selectors import customers_in_the_books
from webhooks.models import Event

from ..deposits.models import DepositAttempt
from ..disputes.models import Dispute
from ..early.models import EarlyPayment
from ..notifications.models import Message
from ..paylinks.models import PayLink
from ..plans.models import Installment, PaymentPlan
from ..plans.purged import named_id
from ..refunds.models import Refund
from ..reschedules.models import Reschedule

Status = PaymentPlan.Status


def retention_cutoff(now: datetime | None = None) -> datetime:
    """`RECORDS_RETENTION_YEARS` years before now (29 February: the 28th)."""
    now = timezone.localtime(now)
    year = now.year - settings.RECORDS_RETENTION_YEARS
    try:
        return now.replace(year=year)
    except ValueError:
        return now.replace(year=year, day=28)


def plans_due(cutoff: datetime) -> QuerySet:
    """Plans whose records are past the period, oldest first."""
    ended = (
        Q(status=Status.COMPLETED, completed_at__lte=cutoff)
        | Q(status=Status.CANCELLED, cancelled_at__lte=cutoff)
        | Q(status=Status.DEFAULTED, defaulted_at__lte=cutoff)
        | Q(status=Status.PENDING)
    )
    return (
        # A dispute still open keeps the plan (DESIGN 19).
        PaymentPlan.objects.filter(ended, updated_at__lte=cutoff, open_disputes=0)
        .exclude(Exists(_changed_since(Installment, cutoff)))
        .exclude(Exists(_open(Refund, Refund.Status.PENDING)))
        .exclude(Exists(_open(Installment, Installment.Status.PROCESSING)))
        .exclude(Exists(_open(EarlyPayment, EarlyPayment.Status.PROCESSING)))
        .exclude(Exists(_open(DepositAttempt, DepositAttempt.Status.PROCESSING)))
        .order_by("updated_at", "pk")
    )


def _changed_since(model, cutoff: datetime) -> QuerySet:
    """An installment moved after the cutoff (a payment on a defaulted plan
    need not touch the plan's row; a refund does, through `amount_refunded`)."""
    return model.objects.filter(plan=OuterRef("pk"), status_changed_at__gt=cutoff)


def _open(model, status: str) -> QuerySet:
    return model.objects.filter(plan=OuterRef("pk"), status=status)


def plan_record_ids(plan_pks: list[int]) -> set[str]:
    """The public ids of the plans and of every record of theirs a message's
    subject can name."""
    ids = set(
        PaymentPlan.objects.filter(pk__in=plan_pks).values_list("public_id", flat=True)
    )
    for model in (Installment, Refund, PayLink, DepositAttempt, EarlyPayment, Dispute):
        rows = model.objects.filter(plan__in=plan_pks)
        ids.update(rows.values_list("public_id", flat=True))
    # A merchant's reschedule is named `rs_<pk>` in its notice's subject.
    reschedules = Reschedule.objects.filter(plan__in=plan_pks)
    ids.update(f"rs_{pk}" for pk in reschedules.values_list("pk", flat=True))
    return ids


def messages_about(plan_pks: list[int], cutoff: datetime) -> list[int]:
    """The messages about these plans, to their customers or merchants: sent
    with one of their pay links, or whose subject names the plan or one of its
    records."""
    ids = plan_record_ids(plan_pks)
    plans = PaymentPlan.objects.filter(pk__in=plan_pks)
    links = PayLink.objects.filter(plan__in=plan_pks)
    rows = Message.objects.filter(
        Q(pay_link__in=links)
        | Q(customer__in=plans.values("customer"), created_at__lte=cutoff)
        # The merchant's e-mail about a plan's default.
        | Q(merchant__in=plans.values("merchant"), created_at__lte=cutoff)
    )
    return [
        pk
        for pk, subject, link in rows.values_list("pk", "subject", "pay_link")
        if link is not None or named_id(subject) in ids
    ]


def events_about(plan_pks: list[int], cutoff: datetime) -> list[int]:
    """The webhook events whose payload names one of these plans (every event
    of a plan carries its id), sent before the cutoff."""
    plans = PaymentPlan.objects.filter(pk__in=plan_pks)
    named = Q()
    for public_id in plans.values_list("public_id", flat=True):
        named |= Q(body__contains=f'"{public_id}"')
    if not named:
        return []
    return list(
        Event.objects.filter(
            named, merchant__in=plans.values("merchant"), created_at__lte=cutoff
        ).values_list("pk", flat=True)
    )


def customers_due(cutoff: datetime) -> QuerySet:
    """Customers with no plan left and no activity (a change to their profile,
    a sign-in code) for the period, whom no kept financial record names (the
    ledger and the processor's charges name the customer they were for; such
    a customer stays, anonymised if they asked for erasure). A sign-in code or a
    message sent to them within the period is activity."""
    codes = SignInCode.objects.filter(customer=OuterRef("pk"), created_at__gt=cutoff)
    sent = Message.objects.filter(customer=OuterRef("pk"), created_at__gt=cutoff)
    customers = Customer.objects.filter(updated_at__lte=cutoff).exclude(
        Exists(codes) | Exists(sent)
    )
    for model in (
        PaymentPlan,
        DepositAttempt,
        EarlyPayment,
        ProcessorCharge,
    ):
        customers = customers.exclude(
            Exists(model.objects.filter(customer=OuterRef("pk")))
        )
    return customers.exclude(pk__in=customers_in_the_books()).order_by("pk")
