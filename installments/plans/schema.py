"""OpenAPI description of the plan representation (DESIGN section 11), which
every endpoint answering a plan shares, and of the plans' read endpoints (list,
detail, installments). A plan's refunds and reschedules are described by their
own subpackages' schemas (components `Refund`, `Reschedule`), named here by
reference."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.request_fields import text_pattern
from config.api.schema import (
    CSV_FORMAT,
    DATE,
    KOBO,
    LIVEMODE,
    PAGINATION,
    TIMESTAMP,
    component,
    list_envelope,
    nullable,
    obj,
    ok_envelope,
    path_id,
    ref,
    string,
    with_csv,
)

from . import api
from .models import Installment, PaymentPlan
from .rules import LAST_WORKING_DAY, PREFERRED_DAYS, SCHEDULE_TYPES

# A monthly plan's preferred day (DESIGN 15): 1-28, "last_working_day", or null.
PREFERRED_DAY = {
    "oneOf": [
        {
            "type": "integer",
            "minimum": min(PREFERRED_DAYS),
            "maximum": max(PREFERRED_DAYS),
            "nullable": True,
        },
        {"type": "string", "enum": [LAST_WORKING_DAY]},
    ]
}


INSTALLMENT = component(
    "Installment",
    obj(
        {
            "id": string("`inst_...`"),
            "livemode": LIVEMODE,
            "sequence": {"type": "integer", "minimum": 1},
            "amount": {
                **KOBO,
                "description": "What is still owed: `original_amount` less what "
                "refunds took off it (0 once a refund cancelled it).",
            },
            "original_amount": {**KOBO, "description": "What it was at creation."},
            "amount_paid": {
                **KOBO,
                "description": "What it has collected: all of `amount` once "
                "`paid`; before that, what a partial collection took of it (0 "
                "without one; see /docs/auto-debit/), the rest, `amount - "
                "amount_paid`, still owed.",
            },
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
            "livemode": LIVEMODE,
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
            "amount_remaining": {
                **KOBO,
                "description": "Still to collect: the installments neither paid nor "
                "cancelled, at what they owe after refunds.",
            },
            "amount_refunded": {
                **KOBO,
                "description": "What refunds took off the order so far: the sum of "
                "its refunds' `amount` (reductions and money not failed; a failed "
                "part's money is refundable again).",
            },
            "amount_refund_pending": {
                **KOBO,
                "description": "Of `amount_refunded`, refund money still on its way "
                "to the customer (parts `requesting` or `pending`): it comes back, "
                "refundable again, if it fails.",
            },
            "schedule_type": string(enum=list(SCHEDULE_TYPES)),
            "installment_count": {
                "type": "integer",
                "description": "Installments after the deposit.",
            },
            "preferred_day": {
                **PREFERRED_DAY,
                "description": "The day of the month a monthly plan's installments "
                'fall on, chosen at checkout (1-28 or `"last_working_day"`, on '
                "working days); null when none was chosen.",
            },
            "collection": string(
                "`auto`: the installments are charged to the customer's card or "
                "bank mandate. `manual`: the customer finished checkout without "
                "one (your `manual_collection` setting was on) and pays each "
                "installment when told it is due; once the customer adds a card "
                "or mandate it is charged as on any plan (see "
                "/docs/payment-plans/#manual-collection).",
                enum=["auto", "manual"],
            ),
            "installments": {
                "type": "array",
                "items": INSTALLMENT,
                "description": "In order; empty while the plan is `pending`.",
            },
            "refunds": {
                "type": "array",
                "items": ref("Refund"),
                "description": "Newest first.",
            },
            "reschedules": {
                "type": "array",
                "items": ref("Reschedule"),
                "description": "The schedule's history: every due date moved, "
                "oldest first.",
            },
            "customer_reschedules_left": {
                "type": "integer",
                "minimum": 0,
                "description": "How many more due dates the customer may move "
                "(the merchant's `customer_reschedules_allowed` less the "
                "customer's moves; the merchant's own moves do not count).",
            },
            "created_at": TIMESTAMP,
        }
    ),
)


PLAN_ID = path_id("plan_id", "plan", "The plan's identifier")


extend_schema_view(
    get=extend_schema(
        operation_id="payment_plans_list",
        summary="List your payment plans, newest first",
        description="Optionally only the plans of one `order_reference`: reconcile "
        "an order whose webhook you missed. `?format=csv` (or `Accept: text/csv`) "
        "answers every plan as CSV ([CSV exports](/docs/api/#csv-exports)).",
        parameters=[
            OpenApiParameter(
                "order_reference",
                # Empty is as if left out; otherwise trimmed by the server, then
                # 1 to 100 characters (whitespace only is a 400).
                {
                    "type": "string",
                    "pattern": "^$|" + text_pattern(min_length=1, max_length=100),
                },
                description="Only the plans of this order reference.",
            ),
            *PAGINATION,
            CSV_FORMAT,
        ],
        responses=with_csv(
            list_envelope(PAYMENT_PLAN),
            "`id, created_at, order_reference, customer_id, status, currency, "
            "total_amount, deposit_amount, amount_paid, amount_remaining, "
            "amount_refunded, amount_refund_pending, schedule_type, "
            "installment_count, next_due_date, livemode`.",
        ),
    )
)(api.PlanListApi)


DUE_INSTALLMENT = component(
    "DueInstallment",
    {
        "allOf": [
            INSTALLMENT,
            obj(
                {
                    "payment_plan_id": string("`plan_...`"),
                    "order_reference": string(),
                    "customer_id": string("`cus_...`"),
                    "currency": string(example="NGN"),
                    "last_failure_reason": string(
                        "Why the last attempt failed (empty when none did)."
                    ),
                    "processor_reference": string(
                        "The processor reference of the charge that paid it."
                    ),
                }
            ),
        ]
    },
)


extend_schema_view(
    get=extend_schema(
        operation_id="installments_list",
        summary="List your installments due in a date range",
        description="By due date (Lagos calendar days, both ends included; a range "
        "that ends before it starts matches nothing), with "
        "their plan and order. `?format=csv` (or `Accept: text/csv`) answers every "
        "one as CSV ([CSV exports](/docs/api/#csv-exports)).",
        parameters=[
            OpenApiParameter(
                "due_from", DATE, description="Due on or after this date."
            ),
            OpenApiParameter("due_to", DATE, description="Due on or before this date."),
            OpenApiParameter(
                "status",
                string(enum=list(Installment.Status.values)),
                description="Only installments in this status.",
            ),
            *PAGINATION,
            CSV_FORMAT,
        ],
        responses=with_csv(
            list_envelope(DUE_INSTALLMENT),
            "`id, payment_plan_id, order_reference, customer_id, sequence, "
            "due_date, status, currency, amount, original_amount, amount_paid, "
            "attempts, last_failure_reason, paid_at, processor_reference, "
            "livemode`.",
        ),
    )
)(api.InstallmentListApi)


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
