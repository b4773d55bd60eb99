"""Refunds and cancellation of a plan."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.idempotency import UUID_V4_PATTERN
from config.api.schema import (
    PAGINATION,
    errors,
    list_envelope,
    ok_envelope,
    path_id,
)

from ..refunds import api as refunds_api
from ..refunds.serializers import PlanCancelInput, RefundCreateInput
from .components import PAYMENT_PLAN, REFUND

PLAN_ID = path_id("plan_id", "plan", "The plan's identifier")
IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {"type": "string", "pattern": UUID_V4_PATTERN},
    OpenApiParameter.HEADER,
    description="Recommended: a UUID v4. Repeating it within 24 hours returns the "
    "refund it created (header `Idempotent-Replayed: true`) and refunds nothing "
    "more, whatever the body or plan; anything but a UUID v4 is a 400 "
    "`invalid_idempotency_key`.",
)

extend_schema_view(
    post=extend_schema(
        operation_id="payment_plan_refund_create",
        summary="Refund part or all of a plan",
        description="With the API key of the plan's merchant. The amount comes off "
        "the unpaid installments first (last due first; one reduced to 0 is "
        "cancelled, and a plan left with nothing to collect is cancelled), the "
        "rest is paid back in money against the plan's collections, newest first. "
        "More than the plan's total less what was refunded (or than its unpaid "
        "installments and collections can take) is a 422 "
        "`refund_exceeds_refundable`; a refund that needs an installment being "
        "charged right now is a 409 `plan_busy` (retry in a moment).",
        parameters=[PLAN_ID, IDEMPOTENCY_KEY],
        request=RefundCreateInput,
        responses={201: ok_envelope(REFUND), **errors(409, 422)},
    ),
    get=extend_schema(
        operation_id="payment_plan_refunds_list",
        summary="A plan's refunds, newest first",
        parameters=[PLAN_ID, *PAGINATION],
        responses={200: list_envelope(REFUND)},
    ),
)(refunds_api.PlanRefundsApi)

extend_schema_view(
    post=extend_schema(
        operation_id="payment_plan_cancel",
        summary="Cancel a plan: no more debits",
        description="With the API key of the plan's merchant: every unpaid "
        "installment is cancelled and the plan too; nothing is refunded (refund "
        "what you owe back with the refunds endpoint). A plan that is not active "
        "or defaulted, or whose installment is being charged right now, is a 409 "
        "`plan_not_cancellable`.",
        parameters=[PLAN_ID],
        request=PlanCancelInput,
        responses={200: ok_envelope(PAYMENT_PLAN), **errors(409)},
    )
)(refunds_api.PlanCancelApi)
