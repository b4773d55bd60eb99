"""OpenAPI description of the customer account endpoints (register, sign in,
profile); imported by payments/schema.py."""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import describe_fields, new_password
from config.api.schema import TIMESTAMP, component, errors, obj, ok_envelope, string

from . import api
from .serializers import CustomerLoginInput, CustomerRegisterInput

# --- what the input serializers' own checks admit ---

PHONE = {
    "pattern": r"^\+?[0-9]+$",
    "description": "Digits, optionally after a `+`.",
}
describe_fields(CustomerRegisterInput, password=new_password, phone=PHONE)

CUSTOMER_TOKENS = component(
    "CustomerTokens",
    obj(
        {
            "access": string("Customer access JWT (15 minutes)."),
            "refresh": string(
                "Refresh JWT (7 days, single use; a sign-in lasts at most 30 days)."
            ),
            "customer_id": string("`cus_...`"),
        }
    ),
)
CUSTOMER = component(
    "Customer",
    obj(
        {
            "customer_id": string("`cus_...`"),
            "email": string(format="email"),
            "first_name": string(),
            "last_name": string(),
            "phone": string(),
            "created_at": TIMESTAMP,
        }
    ),
)
extend_schema_view(
    post=extend_schema(
        operation_id="customer_register",
        summary="Register a customer (shopper): a customer JWT pair",
        request=CustomerRegisterInput,
        responses={201: ok_envelope(CUSTOMER_TOKENS), **errors(409)},
    )
)(api.CustomerRegisterApi)

extend_schema_view(
    post=extend_schema(
        operation_id="customer_login",
        summary="Sign in as a customer: a customer JWT pair",
        request=CustomerLoginInput,
        responses={200: ok_envelope(CUSTOMER_TOKENS), **errors(401, 429)},
    )
)(api.CustomerLoginApi)

extend_schema_view(
    get=extend_schema(
        operation_id="customer_me",
        summary="The signed-in customer's profile",
        responses={200: ok_envelope(CUSTOMER)},
    )
)(api.CustomerMeApi)
