"""OpenAPI description of the checkout endpoints (2, 3, 4-6 payment links, the
public session view and completion).

Imported by config.api.schema_generator.discover_schema_modules(); see
config.api.schema for what every operation gets without saying (security,
common error statuses).
"""

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)

from config.api.request_fields import (
    CONTROL,
    describe_body,
    describe_fields,
    refusing,
    url_schema,
)
from config.api.schema import (
    DATE,
    KOBO,
    LIVEMODE,
    TIMESTAMP,
    component,
    errors,
    obj,
    ok_envelope,
    path_id,
    string,
)
from installments.plans import rules
from installments.plans.schema import PAYMENT_PLAN, PREFERRED_DAY

from . import (  # noqa: F401 (each describes its operations)
    api,
    key_facts_schema,
    links_schema,
)
from .serializers import (
    CompleteInput,
    PaymentLinkCreateInput,
    PreferredDayField,
    PreviewInput,
    SessionCreateInput,
)
from .services.sessions import SUPPORTED_CURRENCIES

# What the rules refuse whatever the merchant (DESIGN section 6); a merchant's own
# plan configuration narrows schedule types and counts further (422).
AMOUNT = {
    "minimum": rules.MIN_AMOUNT,
    "maximum": rules.MAX_AMOUNT,
    "description": "Kobo, 10,000 to 1,000,000,000 inclusive (else 400 "
    "`amount_out_of_range`).",
}
CURRENCY = {
    "enum": list(SUPPORTED_CURRENCIES),
    "description": "ISO 4217; only `NGN` is supported (else 400 "
    "`unsupported_currency`).",
}
SCHEDULE_TYPE = {
    "enum": list(rules.SCHEDULE_TYPES),
    "description": "One of the merchant's `allowed_schedule_types` (else 422 "
    "`schedule_type_not_allowed`).",
}
INSTALLMENT_COUNT = {
    "minimum": 1,
    "maximum": rules.MAX_INSTALLMENTS,
    "description": "Installments after the deposit, within the merchant's and the "
    "customer's bounds (else 422 `invalid_installment_count`).",
}
# A JSON integer 1-28 or the string "last_working_day"; null (or left out) is none.
extend_schema_field(
    {
        **PREFERRED_DAY,
        "description": "Monthly plans only: the day of the month the installments "
        'fall on, 1 to 28, or `"last_working_day"`. A day on a weekend or a '
        "Nigerian public holiday moves to the next working day; the first "
        "installment is the first such day at least 14 days after the deposit. "
        "Null or left out: the deposit's day of the month (on a working day). Any "
        "other value, or one with a `weekly` or `biweekly` plan, is a 400 "
        "(`invalid_preferred_day` for the latter).",
    }
)(PreferredDayField)

NO_CONTROL_CHARACTERS = refusing(CONTROL, "No control characters.")
HTTP_URL = url_schema(("http", "https"))

describe_fields(
    SessionCreateInput,
    amount=AMOUNT,
    currency=CURRENCY,
    title=NO_CONTROL_CHARACTERS,
    order_reference=NO_CONTROL_CHARACTERS,
)
describe_fields(
    PreviewInput,
    amount=AMOUNT,
    schedule_type=SCHEDULE_TYPE,
    installment_count=INSTALLMENT_COUNT,
)
describe_fields(
    CompleteInput,
    schedule_type=SCHEDULE_TYPE,
    installment_count=INSTALLMENT_COUNT,
    terms_accepted={
        "enum": [True],
        "description": "true once the customer has seen the key facts "
        "(GET .../key-facts) and agreed; anything else is a 422 "
        "`terms_not_accepted` and nothing is charged.",
    },
)
# A preferred day only with a monthly schedule (else 400 invalid_preferred_day):
# the schedule is monthly, or preferred_day is null or left out. Without `enum`,
# which drf-spectacular would turn into components of their own.
ONLY_NULL = {"type": "integer", "nullable": True, "not": {"type": "integer"}}
MONTHLY_OR_NO_DAY = [
    {"properties": {"schedule_type": {"pattern": f"^{rules.MONTHLY}$"}}},
    {"properties": {"preferred_day": ONLY_NULL}},
]
describe_body(PreviewInput, anyOf=MONTHLY_OR_NO_DAY)
# `terms_accepted` is required by the contract, not by the serializer: a
# completion without it is the 422 `terms_not_accepted`, not a 400.
describe_body(
    CompleteInput, anyOf=MONTHLY_OR_NO_DAY, allOf=[{"required": ["terms_accepted"]}]
)
describe_fields(
    PaymentLinkCreateInput,
    amount=AMOUNT,
    currency=CURRENCY,
    title=NO_CONTROL_CHARACTERS,
    redirect_url=HTTP_URL,
)

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
            "livemode": LIVEMODE,
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
            "livemode": LIVEMODE,
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
            "due_dates": {
                "type": "array",
                "items": DATE,
                "description": "The dates a checkout completed today gets: on "
                "working days, snapped to `preferred_day` when it is given.",
            },
            "total_amount": KOBO,
        }
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="checkout_session_create",
        summary="Create a checkout session",
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
        summary="What the checkout widget shows for a session (public)",
        description="No credential: the unguessable session token is the only key.",
        parameters=[path_id("token", "fcs", "The session token")],
        responses={200: ok_envelope(SESSION_PUBLIC)},
    )
)(api.SessionPublicApi)

extend_schema_view(
    post=extend_schema(
        operation_id="checkout_preview",
        summary="Preview the installment plans for an amount",
        description="A pure computation. With an API key: the key's merchant, and the "
        "named customer's score when the service knows them (else a new "
        "customer's). With a customer JWT: that customer only. The due dates are "
        "those a checkout completed today would get: on working days, and on the "
        "`preferred_day` when one is given (monthly plans).",
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
            ),
            OpenApiExample(
                "Three monthly installments on payday, the 25th",
                request_only=True,
                value={
                    "merchant_id": "mer_3vQbXk2m9TzP1aLw",
                    "amount": 25_000_000,
                    "schedule_type": "monthly",
                    "installment_count": 3,
                    "preferred_day": 25,
                },
            ),
        ],
        responses={200: ok_envelope(PLAN_PREVIEW), **errors(404, 422)},
    )
)(api.PreviewApi)

# --- completion (DESIGN section 11) ---

extend_schema_view(
    post=extend_schema(
        operation_id="checkout_session_complete",
        summary="Complete a checkout: charge the deposit, start the plan",
        description="For consumer apps of your own (the hosted checkout does the "
        "same). The plan is computed as the preview computes it, with the "
        "customer's score and the merchant's configuration today; the deposit is "
        "charged at once on the chosen method. Without `terms_accepted: true` "
        "(the customer agreed to the key facts) 422 `terms_not_accepted` and "
        "nothing is charged or written. 409 `session_completed`, "
        "`session_expired`, `order_already_paid` or `payment_in_progress`; 402 "
        "`payment_failed` (the session stays open for another method); 404 for an "
        "unknown session or a payment method that is not the customer's own active "
        "one; 422 when the plan rules refuse the choice; 400 "
        "`invalid_preferred_day` for a `preferred_day` with a weekly or biweekly "
        "plan. A monthly plan's `preferred_day` is kept on the plan: its due "
        "dates, made when the deposit is collected, are those the preview shows.",
        parameters=[path_id("token", "fcs", "The session token")],
        request=CompleteInput,
        examples=[
            OpenApiExample(
                "Three monthly installments on a saved card",
                request_only=True,
                value={
                    "schedule_type": "monthly",
                    "installment_count": 3,
                    "payment_method_id": "pm_6cWq1Zk8Lm3Rt9Xb",
                    "terms_accepted": True,
                },
            ),
            OpenApiExample(
                "Six monthly installments on the last working day of each month",
                request_only=True,
                value={
                    "schedule_type": "monthly",
                    "installment_count": 6,
                    "payment_method_id": "pm_6cWq1Zk8Lm3Rt9Xb",
                    "preferred_day": "last_working_day",
                    "terms_accepted": True,
                },
            ),
        ],
        responses={201: ok_envelope(PAYMENT_PLAN), **errors(402, 409, 422)},
    )
)(api.SessionCompleteApi)
