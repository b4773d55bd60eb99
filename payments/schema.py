"""OpenAPI description of the payments endpoints: customer accounts, payment
methods (10-20), the merchant's wallet (9) and payout account, and the inbound
processor endpoints (24, 25).

Imported by config.api.schema.discover_schema_modules(); see that module for what
every operation gets without saying (security, common error statuses).
"""

from datetime import date

from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import (
    describe_fields,
    new_password,
    url_schema,
)
from config.api.schema import (
    PAGINATION,
    PROCESSOR_SIGNATURE,
    TIMESTAMP,
    TRUE,
    component,
    errors,
    list_envelope,
    obj,
    ok_envelope,
    path_id,
    string,
)

from . import schema_money  # noqa: F401 - wallet, payout account, endpoint 24
from .api import customers, inbound, methods
from .serializers import (
    CustomerLoginInput,
    CustomerRegisterInput,
    InitializeCardInput,
    InitiateMandateInput,
    MandateStepInput,
    PayoutAccountInput,
    SubmitBirthdayInput,
    SubmitOtpInput,
    SubmitPhoneInput,
    VerifyCardInput,
    VerifyMandateInput,
)

CUSTOMER_ID = path_id("customer_id", "cus", "The customer's identifier")
METHOD_ID = path_id("method_id", "pm", "The payment method's identifier")

# --- what the input serializers' own checks admit ---

PHONE = {
    "pattern": r"^\+?[0-9]+$",
    "description": "Digits, optionally after a `+`.",
}
ACCOUNT_NUMBER = {
    "pattern": "^[0-9]{10}$",
    "minLength": 10,
    "maxLength": 10,
    "description": "A NUBAN account number: exactly 10 digits.",
}
BANK_CODE = {"description": "A `code` from the bank list (endpoint 11)."}
FIRST_BIRTHDAY_YEAR = 1900


def _years(first: int, last: int) -> str:
    """A pattern for the years `first` to `last`, a decade per alternative."""
    decades = []
    for decade in range(first // 10, last // 10 + 1):
        low, high = max(first, decade * 10) % 10, min(last, decade * 10 + 9) % 10
        digit = "[0-9]" if (low, high) == (0, 9) else f"[{low}-{high}]"
        decades.append(f"{decade}{digit}")
    return "|".join(decades)


def birthday() -> dict:
    """A past date from 1900-01-01: as a pattern, the years up to the last one."""
    years = _years(FIRST_BIRTHDAY_YEAR, timezone.localdate().year - 1)
    return {
        "pattern": f"^(?:{years})-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])$",
        "description": f"YYYY-MM-DD, from {date(FIRST_BIRTHDAY_YEAR, 1, 1)} to "
        "yesterday.",
    }


describe_fields(CustomerRegisterInput, password=new_password, phone=PHONE)
describe_fields(InitializeCardInput, callback_url=url_schema(("http", "https")))
describe_fields(
    InitiateMandateInput, bank_code=BANK_CODE, account_number=ACCOUNT_NUMBER
)
describe_fields(MandateStepInput, account_number=ACCOUNT_NUMBER)
describe_fields(
    SubmitOtpInput,
    otp={
        "pattern": "^[0-9]{4,8}$",
        "minLength": 4,
        "maxLength": 8,
        "description": "4 to 8 digits.",
    },
)
describe_fields(SubmitBirthdayInput, birthday=birthday)
describe_fields(SubmitPhoneInput, phone=PHONE)
describe_fields(PayoutAccountInput, bank_code=BANK_CODE, account_number=ACCOUNT_NUMBER)

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
PAYMENT_METHOD = component(
    "PaymentMethod",
    obj(
        {
            "id": string("`pm_...`"),
            "customer_id": string("`cus_...`"),
            "type": string(enum=["card", "bank"]),
            "label": string(
                "Card: a brand label; bank: bank name with masked account digits."
            ),
            "last4": string("Last four card or account digits."),
            "is_default": {"type": "boolean"},
            "is_active": {
                "type": "boolean",
                "description": "False once the processor revoked it (kept as "
                "history, never charged).",
            },
            "created_at": TIMESTAMP,
            "brand": string("Cards only."),
            "exp_month": string("Cards only, `MM`."),
            "exp_year": string("Cards only, `YYYY`."),
            "bank_code": string("Bank methods only."),
            "bank_name": string("Bank methods only."),
        },
        optional=("brand", "exp_month", "exp_year", "bank_code", "bank_name"),
    ),
)
BANK = component("Bank", obj({"name": string(), "code": string("CBN bank code.")}))
NEXT_ACTIONS = ["submit_otp", "submit_birthday", "submit_phone", "open_url", "success"]
MANDATE_STEP = component(
    "MandateStep",
    obj(
        {
            "ok": TRUE,
            "next_action": string(enum=NEXT_ACTIONS),
            "reference": string("The mandate's reference: send it with every step."),
            "display_text": string("Text to show the customer."),
            "url": string("Only when `next_action` is `open_url`: open it in a popup."),
            "data": PAYMENT_METHOD,
        },
        optional=("url", "data"),
        description="`data` (the saved bank payment method) comes with "
        "`next_action: success`.",
    ),
)
MESSAGE = ok_envelope(message=string())
MANDATE_ERRORS = errors(402, 404, 409, 422, 502, 504)

extend_schema_view(
    post=extend_schema(
        operation_id="customer_register",
        summary="Register a customer (shopper): a customer JWT pair",
        request=CustomerRegisterInput,
        responses={201: ok_envelope(CUSTOMER_TOKENS), **errors(409)},
    )
)(customers.CustomerRegisterApi)

extend_schema_view(
    post=extend_schema(
        operation_id="customer_login",
        summary="Sign in as a customer: a customer JWT pair",
        request=CustomerLoginInput,
        responses={200: ok_envelope(CUSTOMER_TOKENS), **errors(401, 429)},
    )
)(customers.CustomerLoginApi)

extend_schema_view(
    get=extend_schema(
        operation_id="customer_me",
        summary="The signed-in customer's profile",
        responses={200: ok_envelope(CUSTOMER)},
    )
)(customers.CustomerMeApi)

extend_schema_view(
    get=extend_schema(
        operation_id="payment_methods_list",
        summary="List a customer's payment methods (endpoint 10)",
        parameters=[CUSTOMER_ID, *PAGINATION],
        responses={200: list_envelope(PAYMENT_METHOD)},
    )
)(methods.PaymentMethodListApi)

extend_schema_view(
    get=extend_schema(
        operation_id="banks_list",
        summary="Banks supported for direct debit mandates (endpoint 11)",
        responses={200: ok_envelope({"type": "array", "items": BANK})},
    )
)(methods.BankListApi)

extend_schema_view(
    post=extend_schema(
        operation_id="card_initialize",
        summary="Start saving a card: the redirect flow (endpoint 12)",
        description="A verification charge of 5000 kobo, refunded after "
        "verification. Redirect the customer to `authorization_url`.",
        request=InitializeCardInput,
        responses={
            200: ok_envelope(
                authorization_url=string(format="uri"),
                reference=string("Send it to verify-card (endpoint 13)."),
            ),
            **errors(404, 422, 502, 504),
        },
    )
)(methods.CardInitializeApi)

extend_schema_view(
    post=extend_schema(
        operation_id="card_verify",
        summary="Verify the card and save it (endpoint 13)",
        request=VerifyCardInput,
        responses={200: ok_envelope(PAYMENT_METHOD), **MANDATE_ERRORS},
    )
)(methods.CardVerifyApi)

extend_schema_view(
    post=extend_schema(
        operation_id="bank_mandate_initiate",
        summary="Start a bank direct debit mandate (endpoint 14)",
        parameters=[CUSTOMER_ID],
        request=InitiateMandateInput,
        responses={200: MANDATE_STEP, **MANDATE_ERRORS},
    )
)(methods.MandateInitiateApi)

for view, operation_id, summary, serializer in (
    (
        methods.MandateSubmitOtpApi,
        "bank_mandate_submit_otp",
        "Submit the OTP (endpoint 15)",
        SubmitOtpInput,
    ),
    (
        methods.MandateSubmitBirthdayApi,
        "bank_mandate_submit_birthday",
        "Submit the account holder's birthday (endpoint 16)",
        SubmitBirthdayInput,
    ),
    (
        methods.MandateSubmitPhoneApi,
        "bank_mandate_submit_phone",
        "Submit the account holder's phone (endpoint 17)",
        SubmitPhoneInput,
    ),
    (
        methods.MandateVerifyApi,
        "bank_mandate_verify",
        "Verify an open-URL mandate after the popup (endpoint 18)",
        VerifyMandateInput,
    ),
):
    extend_schema_view(
        post=extend_schema(
            operation_id=operation_id,
            summary=summary,
            request=serializer,
            responses={200: MANDATE_STEP, **MANDATE_ERRORS},
        )
    )(view)

extend_schema_view(
    put=extend_schema(
        operation_id="payment_method_set_default",
        summary="Make a payment method the default (endpoint 19)",
        parameters=[METHOD_ID],
        request=None,
        responses={200: MESSAGE, **errors(409)},
    )
)(methods.PaymentMethodDefaultApi)

extend_schema_view(
    delete=extend_schema(
        operation_id="payment_method_delete",
        summary="Delete a payment method (endpoint 20)",
        parameters=[METHOD_ID],
        responses={200: MESSAGE},
    )
)(methods.PaymentMethodDeleteApi)

REVOCATION_EVENT = component(
    "ProcessorRevocationEvent",
    obj(
        {
            "event": string(
                "`authorization.revoked`, `mandate.cancelled` or "
                "`direct_debit.authorization.deactivated`; other events are "
                "acknowledged and ignored."
            ),
            "data": {
                "type": "object",
                "description": "Names the `authorization_code` (or "
                "`authorization.authorization_code`) and, when known, the "
                "customer's e-mail.",
                "additionalProperties": True,
            },
        }
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="processor_revocation_event",
        summary="Processor revocation events (endpoint 25, internal)",
        description="Called by the payment processor, never by merchants. The "
        "signature is verified first (401 `invalid_signature`; a refused body is not "
        "kept), then the request is stored and the event handled once. A signed body "
        "that is not a revocation event it can read (not JSON, nested too deeply, "
        "not an object) is 400.",
        auth=PROCESSOR_SIGNATURE,
        request={"application/json": REVOCATION_EVENT},
        responses={
            200: ok_envelope(
                message=string(enum=["handled", "duplicate", "ignored"]),
            ),
        },
    )
)(inbound.PaymentGatewayWebhookApi)
