"""OpenAPI description of the reschedule endpoint and of the reschedule
representation (component `Reschedule`, which the plan representation
names)."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import describe_fields
from config.api.schema import (
    DATE,
    TIMESTAMP,
    component,
    errors,
    obj,
    ok_envelope,
    path_id,
    string,
)

from ..plans.schema import PAYMENT_PLAN, PLAN_ID
from . import api
from .models import Reschedule
from .serializers import RescheduleInput

RESCHEDULE = component(
    "Reschedule",
    obj(
        {
            "installment_id": string("`inst_...`"),
            "sequence": {"type": "integer", "minimum": 1},
            "previous_due_date": DATE,
            "due_date": {**DATE, "description": "The date it was moved to."},
            "rescheduled_by": string(
                "Who moved it: the plan's `customer` or its `merchant`.",
                enum=list(Reschedule.By.values),
            ),
            "created_at": TIMESTAMP,
        }
    ),
)


describe_fields(
    RescheduleInput,
    due_date={
        "description": "The installment's new due date (Lagos, YYYY-MM-DD): a "
        "working day after today and after its current date, before the next "
        "installment's date, within a year.",
    },
)


extend_schema_view(
    post=extend_schema(
        operation_id="payment_plan_installment_reschedule",
        summary="Move an unpaid installment's due date later",
        description="With the plan's customer's JWT: one unpaid installment, not "
        "the last, at most `reschedule_max_days` days later and "
        "`customer_reschedules_allowed` times per plan (the merchant's "
        "settings). With the API key of the plan's merchant: any unpaid "
        "installment, any number of times, to a date at least 14 days from "
        "today (an earlier one is a 422 `notice_too_short` naming the earliest "
        "date allowed: the customer is told of the move by e-mail and SMS with "
        "the new schedule). For everyone the "
        "new date is a working day after today and after the current date, "
        "before the next installment's date (the later installments keep "
        "theirs). Anything else is a 422 `reschedule_not_allowed` whose message "
        "says why (a weekend or holiday names the next working day); an "
        "installment being collected right now is a 409 `payment_in_progress`. "
        "Amounts never change. Answers the plan; sends "
        "`payment_plan.rescheduled`.",
        parameters=[
            PLAN_ID,
            path_id("installment_id", "inst", "The installment's identifier"),
        ],
        request=RescheduleInput,
        responses={200: ok_envelope(PAYMENT_PLAN), **errors(409, 422)},
    )
)(api.InstallmentRescheduleApi)
