"""OpenAPI description of the disputes endpoints and of the dispute
representation (component `Dispute`), and of resuming a plan after a lost
dispute."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.request_fields import CONTROL, describe_fields, refusing
from config.api.schema import (
    KOBO,
    LIVEMODE,
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

from ..plans.schema import PAYMENT_PLAN, PLAN_ID
from . import api
from .files import MAX_FILES
from .models import Dispute
from .serializers import (
    DisputeAcceptInput,
    DisputeEvidenceInput,
    DisputeEvidenceUpload,
)

DISPUTE_ID = path_id("dispute_id", "dp", "The dispute's identifier")

EVIDENCE_FILE = obj(
    {
        "filename": string(),
        "content_type": string(enum=["application/pdf", "image/jpeg", "image/png"]),
        "size": {"type": "integer", "minimum": 0, "description": "Bytes."},
        "sha256": string("The file's SHA-256, in hex."),
        "attached_automatically": {
            "type": "boolean",
            "description": "True for the plan's agreement and its payment history, "
            "which every answer carries.",
        },
    }
)

EVIDENCE = obj(
    {
        "customer_email": string(),
        "customer_name": string(),
        "customer_phone": string(),
        "service_details": string(),
        "delivery_address": string(),
        "delivery_date": string("YYYY-MM-DD, or empty."),
        "message": string(),
        "files": {"type": "array", "items": EVIDENCE_FILE},
    },
    description="Your answer as it was sent to the processor.",
)

DISPUTE = component(
    "Dispute",
    obj(
        {
            "id": string("`dp_...`"),
            "livemode": LIVEMODE,
            "payment_plan_id": string("`plan_...`"),
            "collection_reference": string(
                "The processor reference of the disputed collection (the "
                "deposit's `plan_..._d1`, an installment's `inst_..._a1`, ...)."
            ),
            "installment_id": nullable(
                string("`inst_...`: the installment it paid; null for a deposit.")
            ),
            "amount": {**KOBO, "description": "What the customer's bank disputes."},
            "amount_held": {
                **KOBO,
                "description": "What is held from your wallet while it is open: "
                "`amount`, less what refunds already gave back of the collection.",
            },
            "currency": string(example="NGN"),
            "reason": string("The customer's reason, as the processor passes it on."),
            "status": string(
                "`needs_response` until you answer (by `due_at`) or accept; "
                "`under_review` once answered; then `won` or `lost`. `accepted`: "
                "you gave in (lost in money terms).",
                enum=list(Dispute.Status.values),
            ),
            "due_at": TIMESTAMP,
            "evidence": nullable(EVIDENCE),
            "created_at": TIMESTAMP,
            "responded_at": nullable(TIMESTAMP),
            "resolved_at": nullable(TIMESTAMP),
        }
    ),
)


def _text(description: str) -> dict:
    return refusing(CONTROL, f"{description} No control characters.")


_TEXT_FIELDS = {
    "customer_name": _text("The customer's name as your records hold it."),
    "customer_phone": _text("The customer's phone number as your records hold it."),
    "service_details": _text(
        "What you sold and how it was delivered or used: the heart of your answer."
    ),
    "delivery_address": _text("Where the goods went."),
    "message": _text("Anything else the customer's bank should read."),
}
describe_fields(DisputeEvidenceInput, **_TEXT_FIELDS)
describe_fields(
    DisputeEvidenceUpload,
    **_TEXT_FIELDS,
    files={
        "maxItems": MAX_FILES,
        "items": {"type": "string", "format": "binary"},
        "description": "Up to 5 files (repeat the `files` part), each a PDF, JPEG "
        "or PNG of 5 MiB or less, known by its content, not its name; another "
        "file is a 422 `evidence_file_invalid` naming it.",
    },
)
describe_fields(
    DisputeAcceptInput,
    message=_text("Your words to the customer's bank."),
)


extend_schema_view(
    get=extend_schema(
        operation_id="disputes_list",
        summary="List your disputes, the nearest deadline first",
        description="Every dispute of your plans' payments, optionally only one "
        "status or one plan's.",
        parameters=[
            OpenApiParameter(
                "status",
                string(enum=list(Dispute.Status.values)),
                description="Only disputes in this status.",
            ),
            OpenApiParameter(
                "payment_plan_id",
                string(pattern="^plan_[0-9A-Za-z]{1,64}$"),
                description="Only the disputes of this plan (`plan_...`).",
            ),
            *PAGINATION,
        ],
        responses={200: list_envelope(DISPUTE)},
    )
)(api.DisputeListApi)


extend_schema_view(
    get=extend_schema(
        operation_id="dispute_get",
        summary="One dispute",
        description="Another merchant's dispute is a 404.",
        parameters=[DISPUTE_ID],
        responses={200: ok_envelope(DISPUTE)},
    )
)(api.DisputeDetailApi)


extend_schema_view(
    post=extend_schema(
        operation_id="dispute_evidence_submit",
        summary="Answer a dispute with evidence",
        description="As `multipart/form-data` (the text fields and up to 5 files "
        "in `files`; the body may be up to 26 MiB) or as JSON (the text fields "
        "only). The plan's agreement record and its payment history are attached "
        "for you. The answer goes to the processor and the dispute is "
        "`under_review` until the customer's bank decides (event "
        "`dispute.updated`). A dispute already answered, accepted or resolved is a "
        "409 `dispute_not_open`; one past its `due_at` a 409 "
        "`dispute_deadline_passed`.",
        parameters=[DISPUTE_ID],
        request={
            "multipart/form-data": DisputeEvidenceUpload,
            "application/json": DisputeEvidenceInput,
        },
        responses={200: ok_envelope(DISPUTE), **errors(409, 422)},
    )
)(api.DisputeEvidenceApi)


extend_schema_view(
    post=extend_schema(
        operation_id="dispute_accept",
        summary="Accept a dispute: the customer keeps the money",
        description="The processor is told, the held amount is charged back (the "
        "platform gives back its fee on it, as for a refund) and the plan waits "
        "`disputed` until you cancel or resume it (event `dispute.lost`). A "
        "dispute already answered, accepted or resolved is a 409 "
        "`dispute_not_open`; one past its `due_at` a 409 "
        "`dispute_deadline_passed`.",
        parameters=[DISPUTE_ID],
        request=DisputeAcceptInput,
        responses={200: ok_envelope(DISPUTE), **errors(409)},
    )
)(api.DisputeAcceptApi)


extend_schema_view(
    post=extend_schema(
        operation_id="payment_plan_resume",
        summary="Resume a plan after a lost dispute",
        description="With the API key of the plan's merchant: a plan waiting "
        "`disputed` is active again and its unpaid installments are collected on "
        "their dates; what was charged back is not collected again. The customer "
        "is told by e-mail (and SMS). A plan not `disputed`, or with a dispute "
        "still open, is a 409 `plan_not_resumable`.",
        parameters=[PLAN_ID],
        request=None,
        responses={200: ok_envelope(PAYMENT_PLAN), **errors(409)},
    )
)(api.PlanResumeApi)
