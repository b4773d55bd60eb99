"""OpenAPI description of the checkout endpoints (2, 3 and the public session view).

Imported by config.api.schema.discover_schema_modules(); see that module for what
every operation gets without saying (security, common error statuses).
"""

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)

from config.api.schema import (
    DATE,
    KOBO,
    TIMESTAMP,
    component,
    errors,
    obj,
    ok_envelope,
    path_id,
    string,
)

from . import api
from .serializers import PreviewInput, SessionCreateInput

IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {
        "type": "string",
        "pattern": "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]"
        "{3}-[0-9a-fA-F]{12}$",
    },
    OpenApiParameter.HEADER,
    description="Recommended: a UUID v4. Repeating it within 24 hours returns the "
    "original answer (same session, header `Idempotent-Replayed: true`) and creates "
    "nothing; anything but a UUID v4 is a 400 `invalid_idempotency_key`.",
)

SESSION_CREATED = component(
    "CheckoutSessionCreated",
    obj(
        {
            "session_token": string("`fcs_...`: pass it to the widget."),
            "expires_at": TIMESTAMP,
        }
    ),
)
SESSION_PUBLIC = component(
    "CheckoutSessionPublic",
    obj(
        {
            "title": string(),
            "amount": KOBO,
            "currency": string(example="NGN"),
            "merchant_name": string(),
            "status": string(enum=["open", "completed", "expired"]),
            "expires_at": TIMESTAMP,
        }
    ),
)
PLAN_PREVIEW = component(
    "PlanPreview",
    obj(
        {
            "schedule_type": string(),
            "installment_count": {"type": "integer"},
            "deposit_amount": KOBO,
            "installment_amounts": {"type": "array", "items": KOBO},
            "due_dates": {"type": "array", "items": DATE},
            "total_amount": KOBO,
        }
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="checkout_session_create",
        summary="Create a checkout session (endpoint 2)",
        description="A session lives 30 minutes. Order of checks: credential, "
        "Idempotency-Key, body, merchant (404, then 403), amount and currency, "
        "order already paid (409 `order_already_paid`).",
        parameters=[IDEMPOTENCY_KEY],
        request=SessionCreateInput,
        examples=[
            OpenApiExample(
                "A laptop on installments",
                request_only=True,
                value={
                    "merchant_id": "mer_3vQbXk2m9TzP1aLw",
                    "amount": 25_000_000,
                    "currency": "NGN",
                    "title": "Laptop",
                    "order_reference": "order-1042",
                    "customer_email": "ada@mail.example",
                },
            )
        ],
        responses={
            201: ok_envelope(SESSION_CREATED),
            **errors(404, 409),
        },
    )
)(api.SessionCreateApi)

extend_schema_view(
    get=extend_schema(
        operation_id="checkout_session_public",
        summary="What the widget shows for a session token (public)",
        parameters=[path_id("token", "fcs", "The session token")],
        responses={200: ok_envelope(SESSION_PUBLIC)},
    )
)(api.SessionPublicApi)

extend_schema_view(
    post=extend_schema(
        operation_id="checkout_preview",
        summary="Preview a plan (endpoint 3)",
        description="A pure computation. With an API key: the key's merchant, and the "
        "named customer's score when the service knows them (else a new "
        "customer's). With a customer JWT: that customer only.",
        request=PreviewInput,
        examples=[
            OpenApiExample(
                "Three monthly installments",
                request_only=True,
                value={
                    "merchant_id": "mer_3vQbXk2m9TzP1aLw",
                    "customer_id": "cus_8fKq2LmZ0xYt4Rb",
                    "amount": 25_000_000,
                    "schedule_type": "monthly",
                    "installment_count": 3,
                },
            )
        ],
        responses={200: ok_envelope(PLAN_PREVIEW), **errors(404, 422)},
    )
)(api.PreviewApi)
