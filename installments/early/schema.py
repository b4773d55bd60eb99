"""OpenAPI description of the pay-early endpoint."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import describe_body, describe_fields
from config.api.schema import (
    errors,
    ok_envelope,
    path_id,
)

from ..plans.schema import PAYMENT_PLAN
from . import api
from .serializers import PayEarlyInput

describe_fields(
    PayEarlyInput,
    installment_id={
        "description": "Pay this unpaid (`scheduled`, `failed` or "
        "`action_required`) installment of the plan now (`inst_...`).",
    },
    payoff={
        "description": "`true`: pay every unpaid installment now, in one charge.",
    },
    payment_method_id={
        "description": "One of your active payment methods (`pm_...`); your "
        "default method when left out.",
    },
)


# One installment or the payoff (`payoff: true`), never both and never neither.
# "Not false" rather than an enum of true: drf-spectacular would move an enum
# here into a component of its own and lose it.
describe_body(
    PayEarlyInput,
    oneOf=[
        {"required": ["installment_id"]},
        {"required": ["payoff"], "not": {"properties": {"payoff": {"enum": [False]}}}},
    ],
)


extend_schema_view(
    post=extend_schema(
        operation_id="payment_plan_pay",
        summary="Pay early: one installment now, or everything left",
        description="With the plan's customer's JWT only (a merchant's API key may "
        "read plans, never pay them: 403); anyone else's plan is a 404. "
        "`{installment_id}` pays one unpaid installment now; `{payoff: true}` pays "
        "every unpaid installment in ONE charge. The installments are claimed "
        "like the auto-debit engine claims them, so an installment being collected "
        "is never charged twice (409 `payment_in_progress`, also while another "
        "early payment of the plan is in flight or the processor has not answered "
        "yet). Success: the installments are `paid` (one attempt each) and the "
        "plan is answered (`completed` once nothing is left). Declined: 402 "
        "`payment_failed`, and every installment is exactly as it was (status, "
        "attempts, retry time); a declined early payment never counts against "
        "the customer. 409 `installment_not_payable` for an installment that is "
        "not unpaid, `plan_not_collectable` for a plan that is not active; 422 "
        "`no_payment_method` when no method is named and none is active.",
        request=PayEarlyInput,
        parameters=[path_id("plan_id", "plan", "The plan's identifier")],
        responses={200: ok_envelope(PAYMENT_PLAN), **errors(402, 409, 422)},
    )
)(api.PlanPayApi)
