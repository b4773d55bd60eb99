"""OpenAPI description of the refund endpoints and of the refund
representation (component `Refund`, which the plan representation names)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.idempotency import UUID_V4_PATTERN
from config.api.request_fields import CONTROL, describe_fields, refusing
from config.api.schema import (
    KOBO,
    LIVEMODE,
    PAGINATION,
    TIMESTAMP,
    component,
    errors,
    list_envelope,
    obj,
    ok_envelope,
    string,
)

from ..plans.schema import PLAN_ID
from . import api as refunds_api
from .models import Refund, RefundPart
from .serializers import RefundCreateInput

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
            "livemode": LIVEMODE,
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
    RefundCreateInput,
    reason=refusing(
        CONTROL,
        "Why you refund, for your records; the customer reads it in the notice "
        "of a refund that changes what they owe. One line: no control "
        "characters.",
    ),
)


extend_schema_view(
    post=extend_schema(
        operation_id="payment_plan_refund_create",
        summary="Refund part or all of a plan",
        description="With the API key of the plan's merchant. The amount comes off "
        "the unpaid installments first (last due first; one reduced to 0 is "
        "cancelled, and a plan left with nothing to collect is cancelled), the "
        "rest is paid back in money against the plan's collections, newest first. "
        "A refund that takes anything off the unpaid installments tells the "
        "customer by e-mail (and SMS) what they still owe and when, with the "
        "reason. "
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
