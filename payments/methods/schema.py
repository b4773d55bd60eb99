"""OpenAPI description of a customer's payment methods (endpoints 10-20);
imported by payments/schema.py."""

from datetime import date

from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view

from config.api.request_fields import describe_fields, url_schema
from config.api.schema import (
    PAGINATION,
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

from ..customers.schema import PHONE
from . import api
from .serializers import (
    InitializeCardInput,
    InitiateMandateInput,
    MandateStepInput,
    SubmitBirthdayInput,
    SubmitOtpInput,
    SubmitPhoneInput,
    VerifyCardInput,
    VerifyMandateInput,
)

CUSTOMER_ID = path_id("customer_id", "cus", "The customer's identifier")
METHOD_ID = path_id("method_id", "pm", "The payment method's identifier")

# --- what the input serializers' own checks admit ---

ACCOUNT_NUMBER = {
    "pattern": "^[0-9]{10}$",
    "minLength": 10,
    "maxLength": 10,
    "description": "A NUBAN account number: exactly 10 digits.",
}
BANK_CODE = {
    "description": "A `code` from the bank list (`GET /api/v1/payment-methods/banks`)."
}
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
            "livemode": {
                "type": "boolean",
                "description": "False for a test method (saved at the sandbox "
                "for test checkouts only; see [Test mode](/docs/test-mode/)).",
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
MANDATE_STEP_DESCRIPTION = (
    "One step of a bank mandate, the one the previous answer's `next_action` "
    "named: send the mandate's `reference` and this step's own field. The bank "
    "fields are optional; when sent they must match the ones the mandate was "
    "started with (`bank_name` is accepted and not used)."
)
MANDATE_ERRORS = errors(402, 404, 409, 422, 502, 504)

extend_schema_view(
    get=extend_schema(
        operation_id="payment_methods_list",
        summary="List a customer's payment methods",
        parameters=[
            CUSTOMER_ID,
            OpenApiParameter(
                "livemode",
                {"type": "boolean", "default": True},
                description="`false`: the customer's test methods, for test "
                "checkouts (see [Test mode](/docs/test-mode/)).",
            ),
            *PAGINATION,
        ],
        responses={200: list_envelope(PAYMENT_METHOD)},
    )
)(api.PaymentMethodListApi)

extend_schema_view(
    get=extend_schema(
        operation_id="banks_list",
        summary="List the banks that support direct debit",
        responses={200: ok_envelope({"type": "array", "items": BANK})},
    )
)(api.BankListApi)

extend_schema_view(
    post=extend_schema(
        operation_id="card_initialize",
        summary="Start saving a card (the customer goes to the card page)",
        description="A verification charge of 5000 kobo, refunded after "
        "verification. Redirect the customer to `authorization_url`.",
        request=InitializeCardInput,
        responses={
            200: ok_envelope(
                authorization_url=string(format="uri"),
                reference=string(
                    "Send it to `POST /api/v1/payment-methods/verify-card` once "
                    "the customer is back."
                ),
            ),
            **errors(404, 422, 502, 504),
        },
    )
)(api.CardInitializeApi)

extend_schema_view(
    post=extend_schema(
        operation_id="card_verify",
        summary="Verify the card and save it",
        request=VerifyCardInput,
        responses={200: ok_envelope(PAYMENT_METHOD), **MANDATE_ERRORS},
    )
)(api.CardVerifyApi)

extend_schema_view(
    post=extend_schema(
        operation_id="bank_mandate_initiate",
        summary="Start a bank direct debit mandate",
        parameters=[CUSTOMER_ID],
        request=InitiateMandateInput,
        responses={200: MANDATE_STEP, **MANDATE_ERRORS},
    )
)(api.MandateInitiateApi)

for view, operation_id, summary, serializer in (
    (
        api.MandateSubmitOtpApi,
        "bank_mandate_submit_otp",
        "Bank mandate: submit the OTP",
        SubmitOtpInput,
    ),
    (
        api.MandateSubmitBirthdayApi,
        "bank_mandate_submit_birthday",
        "Bank mandate: submit the account holder's date of birth",
        SubmitBirthdayInput,
    ),
    (
        api.MandateSubmitPhoneApi,
        "bank_mandate_submit_phone",
        "Bank mandate: submit the account holder's phone number",
        SubmitPhoneInput,
    ),
    (
        api.MandateVerifyApi,
        "bank_mandate_verify",
        "Bank mandate: confirm it after the bank's page",
        VerifyMandateInput,
    ),
):
    extend_schema_view(
        post=extend_schema(
            operation_id=operation_id,
            summary=summary,
            description=MANDATE_STEP_DESCRIPTION,
            request=serializer,
            responses={200: MANDATE_STEP, **MANDATE_ERRORS},
        )
    )(view)

extend_schema_view(
    put=extend_schema(
        operation_id="payment_method_set_default",
        summary="Make a payment method the default",
        parameters=[METHOD_ID],
        request=None,
        responses={200: MESSAGE, **errors(409)},
    )
)(api.PaymentMethodDefaultApi)

extend_schema_view(
    delete=extend_schema(
        operation_id="payment_method_delete",
        summary="Delete a payment method",
        parameters=[METHOD_ID],
        responses={200: MESSAGE},
    )
)(api.PaymentMethodDeleteApi)
