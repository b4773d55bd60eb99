"""Sandbox time travel (`POST /api/v1/sandbox/payment-plans/<id>/collect-next`):
a merchant testing an integration sees a month's collection now."""

from django.db import DatabaseError, connection, transaction

from ..plans.errors import PlanNotCollectable
from ..plans.models import Installment, PaymentPlan
from ..plans.selectors import plans_with_installments
from .engine import installment_collect_now

Status = Installment.Status


def plan_collect_next(*, plan: PaymentPlan) -> PaymentPlan:
    """The plan's next unpaid installment is collected at once, due or not,
    through the engine like any other (the same claim, events, ledger, retries
    and default). Raises 409 `plan_not_collectable` when nothing is left, and
    when the engine's claim finds the installment taken: another call (or the
    schedule) is collecting it, or has just settled that attempt. Only the call
    whose claim won charges, so simultaneous calls charge it once."""
    if plan.status != PaymentPlan.Status.ACTIVE:
        raise PlanNotCollectable(
            f"This plan is {plan.status}: only an active plan has installments "
            "to collect."
        )
    unpaid = (
        plan.installments.exclude(
            status__in=(Status.PAID, Status.DEFAULTED, Status.CANCELLED)
        )
        .order_by("sequence")
        .first()
    )
    if unpaid is None:
        raise PlanNotCollectable()
    if (
        unpaid.status == Status.PROCESSING
        or not installment_collect_now(installment=unpaid).claimed
    ):
        raise PlanNotCollectable(_why_not_claimed(unpaid))
    return plans_with_installments().get(pk=plan.pk)


def _plan_held(plan_pk: int) -> bool:
    """Whether another transaction holds the plan's row now: a refund, a
    cancellation, a reschedule or an early payment being recorded (each locks
    the plan before its installments; the engine's claims never lock it).
    Asked without waiting, with a share lock, so that simultaneous calls asking
    the same never see each other. PostgreSQL only: on SQLite a claim never
    skips a row another holds."""
    if connection.vendor != "postgresql":
        return False
    table = connection.ops.quote_name(PaymentPlan._meta.db_table)
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                f"SELECT 1 FROM {table} WHERE id = %s FOR SHARE NOWAIT",  # noqa: S608
                [plan_pk],
            )
    except DatabaseError:
        return True
    return False


def _why_not_claimed(unpaid: Installment) -> str:
    """Why the engine's claim did not take `unpaid`, read again without
    waiting: its attempt is (or was just) in flight, the plan or the
    installment has just ended, or a change of the plan holds its rows."""
    waiting = (
        f"Installment {unpaid.sequence} is being collected right now; ask again "
        "in a moment."
    )
    if unpaid.status == Status.PROCESSING:
        return waiting
    now = (
        Installment.objects.filter(pk=unpaid.pk)
        .values("status", "attempts", "plan__status")
        .first()
    )
    if now is None:
        return waiting
    if now["plan__status"] != PaymentPlan.Status.ACTIVE:
        return (
            f"This plan is {now['plan__status']}: only an active plan has "
            "installments to collect."
        )
    if now["status"] == Status.CANCELLED:
        return (
            f"Installment {unpaid.sequence} was cancelled just now (by a refund), "
            "so there is nothing to collect on it; ask again to collect the next "
            "one."
        )
    unchanged = now["status"] == unpaid.status and now["attempts"] == unpaid.attempts
    if unchanged and _plan_held(unpaid.plan_id):
        return (
            "This plan is being changed right now (a refund, a cancellation, a "
            "reschedule or an early payment is being recorded), so its next "
            "installment cannot be collected at this moment; ask again in a "
            "moment."
        )
    return waiting
