"""OpenAPI description of a plan's agreement record (DESIGN section 18) and
its PDF."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.schema import (
    KOBO,
    LIVEMODE,
    TIMESTAMP,
    component,
    obj,
    ok_envelope,
    path_id,
    string,
)

from . import api

PLAN_ID = path_id("plan_id", "plan", "The plan's identifier")

KEY_FACTS = component(
    "KeyFacts",
    obj(
        {
            "version": string("The version of the key facts' wording."),
            "merchant": obj(
                {
                    "name": string("The merchant's legal name."),
                    "trading_name": string(),
                    "support_email": string(),
                    "support_phone": string(),
                    "fccpc_registration_number": string(),
                }
            ),
            "currency": string(example="NGN"),
            "cash_price": KOBO,
            "deposit": KOBO,
            "schedule_type": string(),
            "installments": {
                "type": "array",
                "items": obj(
                    {
                        "sequence": {"type": "integer", "minimum": 1},
                        "amount": KOBO,
                        "due_date": string(format="date"),
                    }
                ),
            },
            "total_payable": KOBO,
            "total_cost_of_credit": {
                **KOBO,
                "description": "Total payable minus the cash price.",
            },
            "fees": KOBO,
            "failed_payment": obj(
                {
                    "retry_days": {"type": "array", "items": {"type": "integer"}},
                    "late_fees": KOBO,
                    "text": string(),
                }
            ),
            "cancellation_and_refunds": string(),
            "complaints": string(),
            "mandate_terms": string(
                "The bank mandate's terms, when the plan is collected from one."
            ),
            "mandate_terms_version": string(
                "The version of the mandate terms the customer accepted."
            ),
        },
        optional=("mandate_terms", "mandate_terms_version"),
    ),
)

AGREEMENT = component(
    "Agreement",
    obj(
        {
            "version": string("The version of the key facts the customer accepted."),
            "livemode": LIVEMODE,
            "accepted_at": TIMESTAMP,
            "document_sha256": string(
                "SHA-256 (hex) of the PDF: the bytes `document_url` answers hash "
                "to it every time."
            ),
            "key_facts": KEY_FACTS,
            "document_url": string(
                "Where the PDF is downloaded (same credentials).", format="uri"
            ),
        }
    ),
)

extend_schema_view(
    get=extend_schema(
        operation_id="payment_plan_agreement_get",
        summary="The agreement the customer accepted for a plan",
        description="With the plan's merchant's API key or its customer's JWT; "
        "anyone else's plan is a 404, and a plan made before agreements were "
        "recorded is 404 `agreement_not_found`.",
        parameters=[PLAN_ID],
        responses={200: ok_envelope(AGREEMENT)},
    )
)(api.PlanAgreementApi)

extend_schema_view(
    get=extend_schema(
        operation_id="payment_plan_agreement_pdf",
        summary="The agreement's PDF, as it was made",
        description="The stored bytes (`Content-Disposition: attachment`, never "
        "cached): their SHA-256 is the agreement's `document_sha256`. Same "
        "credentials and 404s as the agreement.",
        parameters=[PLAN_ID],
        responses={(200, "application/pdf"): {"type": "string", "format": "binary"}},
    )
)(api.PlanAgreementPdfApi)
