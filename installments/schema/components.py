"""The plan, installment, refund and reschedule representations of the API."""

from config.api.schema import (
    DATE,
    KOBO,
    TIMESTAMP,
    component,
    nullable,
    obj,
    string,
)

from ..models import Installment, PaymentPlan, Refund, RefundPart, Reschedule
from ..rules import LAST_WORKING_DAY, PREFERRED_DAYS, SCHEDULE_TYPES

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
            "amount": {
                **KOBO,
                "description": "What the refund took off the order, at this moment: "
                "`amount_reduced + amount_returned`. It is what the refund counts in "
                "the plan's `amount_refunded`; a failed part's money leaves it.",
            },
            "amount_requested": {
                **KOBO,
                "description": "What you asked to refund: `amount + amount_failed`.",
            },
            "amount_reduced": {
                **KOBO,
                "description": "Taken off unpaid installments, the last due first: "
                "no money moved. It stays when a part fails.",
            },
            "amount_returned": {
                **KOBO,
                "description": "Paid back in money against the plan's collections, "
                "newest first (one part each): the parts not failed, "
                "`amount_pending` of it still on its way.",
            },
            "amount_pending": {
                **KOBO,
                "description": "Of `amount_returned`, the parts still open "
                "(`requesting` or `pending`): on its way, and may yet fail.",
            },
            "amount_failed": {
                **KOBO,
                "description": "The failed parts' money: back in your wallet and "
                "refundable again (not in `amount` nor the plan's `amount_refunded`).",
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
            "reschedules": {
                "type": "array",
                "items": RESCHEDULE,
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
