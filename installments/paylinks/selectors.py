"""Reads of pay links: the link a token opens, and what its plan's page shows
as due (DESIGN section 17)."""

from dataclasses import dataclass
from datetime import date

from django.utils import timezone

from ..plans.models import Installment, PaymentPlan
from . import tokens
from .models import PayLink

Status = Installment.Status

# What a plan still owes, by the plan's status: an active plan its unpaid
# installments (and those being charged right now, shown but not payable), a
# defaulted plan those it defaulted on.
OWED = {
    PaymentPlan.Status.ACTIVE: (*Installment.UNPAID, Status.PROCESSING),
    PaymentPlan.Status.DEFAULTED: (Status.DEFAULTED,),
}
LATE = (Status.FAILED, Status.ACTION_REQUIRED, Status.DEFAULTED)


def pay_link_by_token(token: str) -> PayLink | None:
    """The link `token` opens (whatever its state), with its plan, merchant and
    customer; None for a token that is not one."""
    if not tokens.well_formed(token):
        return None
    return (
        PayLink.objects.select_related("plan__merchant", "plan__customer")
        .filter(token_hash=tokens.token_hash(token))
        .first()
    )


@dataclass(frozen=True)
class Dues:
    """`due`: the installments due today or overdue, by due date; `later`: the
    rest still owed; `balance`: everything still owed (kobo)."""

    due: list[Installment]
    later: list[Installment]
    today: date

    @property
    def owed(self) -> list[Installment]:
        return [*self.due, *self.later]

    @property
    def balance(self) -> int:
        return sum(row.amount_owed for row in self.owed)

    @property
    def payable(self) -> list[Installment]:
        """What a customer may pay now: everything owed but what is being
        charged at this moment."""
        return [row for row in self.owed if row.status != Status.PROCESSING]

    @property
    def overdue(self) -> list[Installment]:
        return [row for row in self.payable if is_overdue(row, self.today)]

    @property
    def anything(self) -> bool:
        return bool(self.payable)


def is_overdue(row: Installment, today: date) -> bool:
    return row.status in LATE or row.due_date < today


def plan_dues(plan: PaymentPlan, *, today: date | None = None) -> Dues:
    """`plan`'s installments still owed (its installments prefetched or not)."""
    today = today or timezone.localdate()
    owed = sorted(
        (
            row
            for row in plan.installments.all()
            if row.status in OWED.get(plan.status, ())
        ),
        key=lambda row: (row.due_date, row.sequence),
    )
    due = [row for row in owed if row.due_date <= today or row.status in LATE]
    return Dues(due=due, later=[row for row in owed if row not in due], today=today)
