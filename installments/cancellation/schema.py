"""OpenAPI description of the cancel endpoint."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import CONTROL, describe_fields, refusing
from config.api.schema import (
    errors,
    ok_envelope,
)

from ..plans.schema import PAYMENT_PLAN, PLAN_ID
from . import api
from .serializers import PlanCancelInput

describe_fields(
    PlanCancelInput,
    reason=refusing(
        CONTROL,
        "Why the plan is cancelled; the customer reads it in the notice of the "
        "cancellation. One line: no control characters.",
    ),
)


extend_schema_view(
    post=extend_schema(
        operation_id="payment_plan_cancel",
        summary="Cancel a plan: no more debits",
        description="With the API key of the plan's merchant: every unpaid "
        "installment is cancelled and the plan too; nothing is refunded (refund "
        "what you owe back with the refunds endpoint). The customer is told by "
        "e-mail (and SMS) that nothing more will be collected, with the reason. "
        "A plan that is not active "
        "or defaulted, or whose installment is being charged right now, is a 409 "
        "`plan_not_cancellable`.",
        parameters=[PLAN_ID],
        request=PlanCancelInput,
        responses={200: ok_envelope(PAYMENT_PLAN), **errors(409)},
    )
)(api.PlanCancelApi)
