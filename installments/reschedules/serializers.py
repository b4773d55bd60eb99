"""HTTP in/out for rescheduling (DESIGN section 15): the request's body, and
the reschedules part of the plan representation (registered in
installments/apps.py)."""

from django.db.models import Prefetch

from config.api.formats import iso_date, iso_utc
from config.api.serializers import (
    IsoDateField,
    StrictSerializer,
)

from .models import Reschedule
from .selectors import customer_reschedules_left


class RescheduleInput(StrictSerializer):
    """`{due_date}`: the installment's new due date (Lagos, YYYY-MM-DD)."""

    due_date = IsoDateField()


def reschedule_output(reschedule) -> dict:
    return {
        "installment_id": reschedule.installment.public_id,
        "sequence": reschedule.installment.sequence,
        "previous_due_date": iso_date(reschedule.from_date),
        "due_date": iso_date(reschedule.to_date),
        "rescheduled_by": reschedule.by,
        "created_at": iso_utc(reschedule.created_at),
    }


def plan_reschedules_part(plan) -> dict:
    """The plan representation's `reschedules` (its schedule's history, oldest
    first) and `customer_reschedules_left`."""
    return {
        "reschedules": [reschedule_output(row) for row in plan.reschedules.all()],
        "customer_reschedules_left": customer_reschedules_left(plan),
    }


def plan_reschedules_prefetch() -> Prefetch:
    """What `plan_reschedules_part` reads: the schedule changes oldest first."""
    return Prefetch(
        "reschedules",
        queryset=Reschedule.objects.select_related("installment").order_by(
            "created_at", "id"
        ),
    )
