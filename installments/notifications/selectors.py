"""Reads for reminders and receipts: what still needs a message, in id order
from `after` (the caller pages through with the last id it saw)."""

import re
from datetime import date, datetime

from django.db.models import Case, CharField, Exists, F, OuterRef, Q, Value, When
from django.db.models.functions import Cast, Concat

from payments.ledger import selectors as ledger_selectors
from payments.methods.selectors import payment_methods_chargeable_by_customer

from ..plans.models import Installment, PaymentPlan
from ..plans.selectors import amount_remaining, plans_with_installments
from .models import Message
from .notices import Due

DEPOSIT_REFERENCE = re.compile(r"_d[0-9]+$")


def _unsent(kind: str, subject: str, sms_phone: str) -> Q:
    """Rows whose e-mail of `kind` is not recorded yet, or whose SMS is not
    while the customer has a number (added since the e-mail went)."""

    def recorded(channel):
        return Exists(
            Message.objects.filter(
                kind=kind, channel=channel, subject=OuterRef(subject)
            )
        )

    return ~recorded(Message.Channel.EMAIL) | (
        ~Q(**{sms_phone: ""}) & ~recorded(Message.Channel.SMS)
    )


def reminder_subject(installment) -> str:
    """A reminder's subject: the installment's id, then `<id>_r<n>` once its
    due date was moved n times, so each date it is due on gets its reminder."""
    count = installment.reschedule_count
    return installment.public_id + (f"_r{count}" if count else "")


def _reminder_subject():
    """`reminder_subject()` of each row, as SQL."""
    return Case(
        When(reschedule_count=0, then=F("public_id")),
        default=Concat(
            "public_id",
            Value("_r"),
            Cast("reschedule_count", output_field=CharField()),
            output_field=CharField(),
        ),
        output_field=CharField(),
    )


def installments_to_remind(
    due_date: date, *, after: int, limit: int, plan_pk: int | None = None
) -> list:
    """Scheduled installments of active plans (of one plan: `plan_pk`, the
    sandbox clock) due on `due_date` whose reminder for that date is not
    recorded, with their plan, customer and merchant."""
    rows = Installment.objects.filter(
        due_date=due_date,
        status=Installment.Status.SCHEDULED,
        plan__status=PaymentPlan.Status.ACTIVE,
        id__gt=after,
    )
    if plan_pk is not None:
        rows = rows.filter(plan_id=plan_pk)
    return list(
        rows.annotate(reminder_subject=_reminder_subject())
        .filter(
            _unsent(
                Message.Kind.REMINDER, "reminder_subject", "plan__customer__sms_phone"
            )
        )
        .select_related("plan__customer", "plan__merchant")
        .order_by("id")[:limit]
    )


def installments_awaiting_method(
    *, after: int, limit: int, pks: list[int] | None = None
) -> list:
    """Installments of active plans waiting for a payment method (only `pks`,
    when given) whose request to add one is not recorded for their current
    attempt, with their plan, customer and merchant. Read through the partial
    index of waiting installments: few rows."""
    rows = Installment.objects.filter(
        status=Installment.Status.ACTION_REQUIRED,
        plan__status=PaymentPlan.Status.ACTIVE,
        id__gt=after,
    )
    if pks is not None:
        rows = rows.filter(pk__in=pks)
    return list(
        rows.annotate(
            notice_subject=Concat(
                "public_id",
                Value("_a"),
                Cast("attempts", output_field=CharField()),
                output_field=CharField(),
            )
        )
        .filter(
            _unsent(
                Message.Kind.ACTION_REQUIRED,
                "notice_subject",
                "plan__customer__sms_phone",
            )
        )
        .select_related("plan__customer", "plan__merchant")
        .order_by("id")[:limit]
    )


def method_labels(customer_pks) -> dict[tuple[int, bool], str]:
    """The method each customer's next auto-debit on each side tries first,
    keyed by (customer pk, livemode) (a customer without an active method on a
    side is absent for it)."""
    return {
        key: methods[0].label
        for key, methods in payment_methods_chargeable_by_customer(customer_pks).items()
    }


def collections_to_receipt(
    since: datetime, *, after: int, limit: int, plan: PaymentPlan | None = None
) -> list:
    """Ledger collections (deposits, installments, early payments) recorded
    since `since` (of one plan: `plan`, the sandbox clock: its installments'
    by their ids and the plan's own, the deposit and a payoff), with their
    customer."""
    resources = None
    if plan is not None:
        installments = list(plan.installments.values_list("public_id", flat=True))
        resources = {"installment": installments, "payment_plan": [plan.public_id]}
    rows = ledger_selectors.collections_since(since, after=after, resources=resources)
    return list(
        rows.filter(
            _unsent(Message.Kind.RECEIPT_COLLECTION, "reference", "customer__sms_phone")
        )
        .select_related("customer")
        .order_by("id")[:limit]
    )


def collections_described(collections) -> dict[int, tuple]:
    """For each collection (by id) whose plan is found: (plan, what it paid,
    what is left to pay)."""
    installment_ids = [
        c.resource_id for c in collections if c.resource_type == "installment"
    ]
    installments = {
        i.public_id: i
        for i in Installment.objects.filter(public_id__in=installment_ids).only(
            "public_id", "sequence", "plan_id", "partial_reference"
        )
    }
    plan_ids = {i.plan_id for i in installments.values()}
    plan_public_ids = [
        c.resource_id for c in collections if c.resource_type == "payment_plan"
    ]
    plans = plans_with_installments().filter(
        Q(pk__in=plan_ids) | Q(public_id__in=plan_public_ids)
    )
    by_pk = {plan.pk: plan for plan in plans}
    by_public_id = {plan.public_id: plan for plan in by_pk.values()}
    described = {}
    for collection in collections:
        installment = installments.get(collection.resource_id)
        if installment is not None:
            plan = by_pk[installment.plan_id]
            what = f"installment {installment.sequence} of {plan.installment_count}"
            if collection.reference != installment.public_id and (
                collection.reference == installment.partial_reference
            ):
                # A partial collection (DESIGN section 15): the rest is owed.
                what = f"part of {what}; the rest is still to pay"
        elif collection.resource_id in by_public_id:
            plan = by_public_id[collection.resource_id]
            deposit = DEPOSIT_REFERENCE.search(collection.reference)
            what = "the deposit" if deposit else "a payment towards your plan"
        else:
            continue
        described[collection.pk] = (plan, what, amount_remaining(plan))
    return described


def dues_of(installments) -> list[Due]:
    """The unpaid ones of `installments` (rows of one plan) as a notice of
    change lists them, in order: what each still owes and when."""
    return [
        Due(sequence=row.sequence, amount=row.amount_owed, due_date=row.due_date)
        for row in sorted(installments, key=lambda row: row.sequence)
        if row.status in Installment.UNPAID
    ]


def unpaid_dues(plan: PaymentPlan) -> list[Due]:
    """`dues_of` the plan's installments as they are now."""
    return dues_of(plan.installments.filter(status__in=Installment.UNPAID))
