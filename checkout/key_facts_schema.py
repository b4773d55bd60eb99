"""OpenAPI description of `GET /api/v1/checkout/sessions/{token}/key-facts`
(DESIGN section 18), imported by checkout/schema.py."""

from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.schema import DATE, KOBO, component, errors, obj, ok_envelope, string
from installments.agreements.facts import VERSION
from installments.plans import rules

from . import api

TEXT = string("Shown to the customer as it is.")
KEY_FACTS = component(
    "KeyFacts",
    obj(
        {
            "version": string(
                "The wording's version; the agreement keeps it.", example=VERSION
            ),
            "merchant": obj(
                {
                    "name": string("Your legal name, else your business name."),
                    "trading_name": string("Your business name."),
                    "support_email": string(
                        "Your support e-mail, else your account's.", format="email"
                    ),
                    "support_phone": string("Empty when not set."),
                    "fccpc_registration_number": string("Empty when not set."),
                }
            ),
            "currency": string(example="NGN"),
            "cash_price": KOBO,
            "deposit": KOBO,
            "schedule_type": string(enum=list(rules.SCHEDULE_TYPES)),
            "installments": {
                "type": "array",
                "items": obj(
                    {
                        "sequence": {"type": "integer", "minimum": 1},
                        "amount": KOBO,
                        "due_date": DATE,
                    }
                ),
            },
            "total_payable": KOBO,
            "total_cost_of_credit": {
                **KOBO,
                "description": "Total payable minus the cash price; show it even "
                "when 0.",
            },
            "fees": {"type": "integer", "enum": [0]},
            "failed_payment": obj(
                {
                    "retry_days": {"type": "array", "items": {"type": "integer"}},
                    "late_fees": {"type": "integer", "enum": [0]},
                    "text": TEXT,
                }
            ),
            "cancellation_and_refunds": string(
                "Your refund policy, or our text when you have not set one."
            ),
            "complaints": TEXT,
        }
    ),
)


def _query(name: str, schema: dict, description: str, required=True):
    return OpenApiParameter(
        name, schema, OpenApiParameter.QUERY, required=required, description=description
    )


extend_schema_view(
    get=extend_schema(
        operation_id="checkout_session_key_facts",
        summary="The key facts a customer must see before agreeing",
        description="For your own checkout page: show these figures and texts, "
        "then send `terms_accepted: true` with the completion once the customer "
        "agrees. The same figures the hosted checkout's box shows and the plan "
        "gets. With an API key: your own sessions only, the named customer's "
        "score (else a new customer's). With a customer JWT: that customer's. "
        "Bad choices are refused as the preview refuses them (400, 422).",
        parameters=[
            _query(
                "schedule_type",
                {"type": "string", "enum": list(rules.SCHEDULE_TYPES)},
                "One of the merchant's allowed schedule types.",
            ),
            _query(
                "installment_count",
                {"type": "integer", "minimum": 1, "maximum": rules.MAX_INSTALLMENTS},
                "Installments after the deposit.",
            ),
            _query(
                "preferred_day",
                {
                    "type": "string",
                    "pattern": "^([1-9]|1[0-9]|2[0-8]|last_working_day)$",
                },
                "Monthly plans only: 1 to 28 or `last_working_day`.",
                required=False,
            ),
            _query(
                "customer_id",
                {"type": "string"},
                "With an API key: whose score decides the deposit.",
                required=False,
            ),
        ],
        responses={200: ok_envelope(KEY_FACTS), **errors(404, 422)},
    )
)(api.SessionKeyFactsApi)
