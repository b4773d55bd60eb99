"""OpenAPI description of the payment plan endpoints (DESIGN section 11) and of
the plan representation, which checkout completion answers with too.

Imported by config.api.schema.discover_schema_modules(); see that module for what
every operation gets without saying (security, common error statuses).
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.schema import (
    DATE,
    KOBO,
    PAGINATION,
    TIMESTAMP,
    component,
    errors,
    list_envelope,
    nullable,
    obj,
    ok_envelope,
    path_id,
    string,
)

from . import api
from .models import Installment, PaymentPlan
from .rules import SCHEDULE_TYPES

INSTALLMENT = component(
    "Installment",
    obj(
        {
            "id": string("`inst_...`"),
            "sequence": {"type": "integer", "minimum": 1},
            "amount": KOBO,
            "due_date": DATE,
            "status": string(enum=list(Installment.Status.values)),
            "attempts": {
                "type": "integer",
                "minimum": 0,
                "description": "Collection attempts so far.",
            },
            "paid_at": nullable(TIMESTAMP),
        }
    ),
)
PAYMENT_PLAN = component(
    "PaymentPlan",
    obj(
        {
            "id": string("`plan_...`"),
            "status": string(enum=list(PaymentPlan.Status.values)),
            "merchant_id": string("`mer_...`"),
            "customer_id": string("`cus_...`"),
            "order_reference": string(),
            "currency": string(example="NGN"),
            "total_amount": KOBO,
            "deposit_amount": KOBO,
            "amount_paid": {
                **KOBO,
                "description": "The deposit (once paid) plus every paid installment.",
            },
            "amount_remaining": {**KOBO, "description": "total_amount - amount_paid."},
            "schedule_type": string(enum=list(SCHEDULE_TYPES)),
            "installment_count": {
                "type": "integer",
                "description": "Installments after the deposit.",
            },
            "installments": {
                "type": "array",
                "items": INSTALLMENT,
                "description": "In order; empty while the plan is `pending`.",
            },
            "created_at": TIMESTAMP,
        }
    ),
)

extend_schema_view(
    get=extend_schema(
        operation_id="payment_plans_list",
        summary="List your payment plans, newest first",
        description="Optionally only the plans of one `order_reference`: reconcile "
        "an order whose webhook you missed.",
        parameters=[
            OpenApiParameter(
                "order_reference",
                {"type": "string", "maxLength": 100},
                description="Only the plans of this order reference.",
            ),
            *PAGINATION,
        ],
        responses={200: list_envelope(PAYMENT_PLAN)},
    )
)(api.PlanListApi)

extend_schema_view(
    get=extend_schema(
        operation_id="payment_plan_get",
        summary="One payment plan with its installments",
        description="With the plan's merchant's API key or its customer's JWT; "
        "anyone else's plan is a 404.",
        parameters=[path_id("plan_id", "plan", "The plan's identifier")],
        responses={200: ok_envelope(PAYMENT_PLAN)},
    )
)(api.PlanDetailApi)

extend_schema_view(
    post=extend_schema(
        operation_id="sandbox_plan_collect_next",
        summary="Sandbox time travel: collect the plan's next installment now",
        description="Only when the service runs the sandbox processor (404 "
        "otherwise). With the API key of the plan's merchant: makes the next unpaid "
        "installment due now and collects it, so the merchant sees installment.paid, "
        "payment.failed, goods.release and completion without waiting. A plan with "
        "nothing left to collect is a 409 plan_not_collectable.",
        request=None,
        parameters=[path_id("plan_id", "plan", "The plan's identifier")],
        responses={200: ok_envelope(PAYMENT_PLAN), **errors(409)},
    )
)(api.SandboxCollectNextApi)
