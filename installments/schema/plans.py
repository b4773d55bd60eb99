"""The payment plans' endpoints: lists (JSON or CSV), one plan, paying early,
moving a due date."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.request_fields import describe_body, describe_fields, text_pattern
from config.api.schema import (
    CSV_FORMAT,
    DATE,
    PAGINATION,
    component,
    errors,
    list_envelope,
    obj,
    ok_envelope,
    path_id,
    string,
    with_csv,
)

from .. import api
from ..models import Installment
from ..serializers import PayEarlyInput, RescheduleInput
from .components import INSTALLMENT, PAYMENT_PLAN

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
            "installment_count, next_due_date`.",
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
            "attempts, last_failure_reason, paid_at, processor_reference`.",
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
        "installment, any number of times, any number of days. For everyone the "
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
