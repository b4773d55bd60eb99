"""OpenAPI description of the payment plan endpoints (DESIGN section 11) and of
the plan representation, which checkout completion answers with too.

Imported by config.api.schema_generator.discover_schema_modules(); see
config.api.schema for what every operation gets without saying (security,
common error statuses).
"""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.idempotency import UUID_V4_PATTERN
from config.api.request_fields import describe_body, describe_fields, text_pattern
from config.api.schema import (
    CSV_FORMAT,
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
    with_csv,
)

from . import api
from .models import Installment, PaymentPlan, Refund, RefundPart
from .refunds import api as refunds_api
from .refunds.serializers import PlanCancelInput, RefundCreateInput
from .rules import LAST_WORKING_DAY, PREFERRED_DAYS, SCHEDULE_TYPES
from .serializers import PayEarlyInput

REFUND_PART = component(
    "RefundPart",
    obj(
        {
            "reference": string(
                "The processor refund's own reference, `<refund id>_<n>`."
            ),
            "collection_reference": string(
                "The processor reference of the collection it pays back (the "
                "deposit's `plan_..._d1`, an installment's `inst_..._a1`, ...)."
            ),
            "amount": KOBO,
            "status": string(
                "`requesting` until the processor has it, then `pending`, then "
                "`processed` or `failed` (the money is back in your wallet).",
                enum=list(RefundPart.Status.values),
            ),
        }
    ),
)
REFUND = component(
    "Refund",
    obj(
        {
            "id": string("`rf_...`"),
            "payment_plan_id": string("`plan_...`"),
            "amount": {**KOBO, "description": "What the refund took off the order."},
            "amount_reduced": {
                **KOBO,
                "description": "Taken off unpaid installments, the last due first: "
                "no money moved.",
            },
            "amount_returned": {
                **KOBO,
                "description": "Paid back in money against the plan's collections, "
                "newest first (one part each).",
            },
            "reason": string(),
            "status": string(
                "`processed` when no money moves or every part is processed, "
                "`pending` while a part is open, `failed` when a part failed (its "
                "money is back in your wallet and refundable again; the reductions "
                "stay).",
                enum=list(Refund.Status.values),
            ),
            "parts": {"type": "array", "items": REFUND_PART},
            "created_at": TIMESTAMP,
        }
    ),
)
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
            "sequence": {"type": "integer", "minimum": 1},
            "amount": {
                **KOBO,
                "description": "What is still owed: `original_amount` less what "
                "refunds took off it (0 once a refund cancelled it).",
            },
            "original_amount": {**KOBO, "description": "What it was at creation."},
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
            "amount_remaining": {
                **KOBO,
                "description": "Still to collect: the installments neither paid nor "
                "cancelled, at what they owe after refunds.",
            },
            "amount_refunded": {
                **KOBO,
                "description": "What refunds took off the order so far (money of a "
                "failed refund part excepted).",
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
            "installments": {
                "type": "array",
                "items": INSTALLMENT,
                "description": "In order; empty while the plan is `pending`.",
            },
            "refunds": {
                "type": "array",
                "items": REFUND,
                "description": "Newest first.",
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
            "amount_refunded, schedule_type, installment_count, next_due_date`.",
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
            "due_date, status, currency, amount, original_amount, attempts, "
            "last_failure_reason, paid_at, processor_reference`.",
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
