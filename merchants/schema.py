"""OpenAPI description of the merchants endpoints (1, 7, 8, login, settings).

Imported by config.api.schema_generator.discover_schema_modules(); see
config.api.schema for what every operation gets without saying (security,
common error statuses).
"""

from drf_spectacular.utils import extend_schema, extend_schema_view

from config.api.request_fields import (
    CONTROL,
    describe_body,
    describe_fields,
    new_password,
    refusing,
    url_schema,
    webhook_url,
)
from config.api.schema import (
    LIVEMODE,
    PAGINATION,
    TIMESTAMP,
    component,
    errors,
    list_envelope,
    obj,
    ok_envelope,
    path_id,
    string,
)

from . import api
from .models import (
    LEGAL_SETTINGS,
    MAX_INSTALLMENTS,
    RELEASE_RULE_PATTERN,
    SCHEDULE_TYPES,
    SUPPORT_PHONE_PATTERN,
)
from .serializers import (
    LoginInput,
    LoginMfaInput,
    RegisterInput,
    RotateKeyInput,
    SettingsInput,
)

MERCHANT_ID = path_id("merchant_id", "mer", "The merchant's identifier")
RELEASE_RULES = [
    rule
    for rule in (
        "on_deposit",
        "on_completion",
        *(f"after_installments:{n}" for n in range(1, MAX_INSTALLMENTS + 1)),
    )
    if RELEASE_RULE_PATTERN.match(rule)
]

describe_fields(
    RegisterInput,
    password=new_password,
    business_name=refusing(
        CONTROL,
        "Your business's name as customers know it: it appears in their "
        "e-mails and text messages. One line: no line breaks or other control "
        "characters.",
    ),
    business_url={
        **url_schema(("http", "https")),
        "description": "Your shop's address (http or https): the hosted checkout "
        "may be framed only there, and the widget's messages go only to it.",
    },
)
# Sent together, the bounds must be in order (checked against the stored ones too
# when only one is sent, which no schema can say): some k lies between them.
describe_body(
    SettingsInput,
    anyOf=[
        {
            "properties": {
                "min_installments": {"maximum": k},
                "max_installments": {"minimum": k},
            }
        }
        for k in range(1, MAX_INSTALLMENTS + 1)
    ],
)
describe_fields(
    SettingsInput,
    webhook_url=webhook_url(
        "An https URL that does not point to a private, loopback or reserved "
        "address; empty removes it."
    ),
    test_webhook_url=webhook_url(
        "Where test events go (test mode, see [Test mode](/docs/test-mode/)): "
        "the same rules as `webhook_url`; empty removes it. Live events never "
        "go here, test events never to `webhook_url`."
    ),
    test_webhook_secret={
        "description": "The secret test events are signed with, 16 to 200 "
        "characters; write-only like `webhook_secret`.",
    },
    release_rule={"enum": RELEASE_RULES},
    customer_reschedules_allowed={
        "description": "How many due dates a customer may move per plan, 0 to "
        "12 (0: customers cannot reschedule; you always can). Default 1.",
    },
    reschedule_max_days={
        "description": "How many days later, at most, a customer may move a due "
        "date, 1 to 60. Default 14.",
    },
    legal_name=refusing(
        CONTROL,
        "Your registered legal name, shown in the key facts customers agree to "
        "(else your business name). One line; empty clears it.",
    ),
    support_email={
        "description": "Where customers reach you, shown in the key facts (else "
        "your account's e-mail); empty clears it.",
    },
    support_phone={
        "pattern": f"^({SUPPORT_PHONE_PATTERN.pattern})?$",
        "description": "Your customers' phone line, shown in the key facts: "
        "digits with an optional leading +, spaces, hyphens or brackets, 7 to "
        "15 digits; empty clears it.",
    },
    fccpc_registration_number=refusing(
        CONTROL,
        "Your FCCPC digital lending registration number, shown in the key "
        "facts. One line; empty clears it.",
    ),
    refund_policy=refusing(
        CONTROL,
        "How a customer cancels or gets a refund, in your words, shown in the "
        "key facts. One line (no line breaks), up to 2,000 characters; empty "
        "clears it.",
    ),
    manual_collection={
        "description": "Manual collection (see /docs/payment-plans/): true lets "
        "a customer finish checkout with the deposit paid by bank transfer or "
        "USSD and no card or bank mandate; such plans are not auto-debited, the "
        "customer is told to pay on each due date. Applies to plans created "
        "after the change. Default false.",
    },
)

MERCHANT = component(
    "Merchant",
    obj(
        {
            "merchantId": string("`mer_...`"),
            "livemode": LIVEMODE,
            "status": string("`pending` after registration.", enum=["pending"]),
            "email": string(format="email"),
        }
    ),
)
MERCHANT_TOKENS = component(
    "MerchantTokens",
    obj(
        {
            "access": string("Merchant access JWT (15 minutes)."),
            "refresh": string(
                "Refresh JWT (7 days, single use; a sign-in lasts at most 30 days)."
            ),
            "merchant_id": string("`mer_...`"),
        }
    ),
)
MFA_CHALLENGE = component(
    "MerchantMfaChallenge",
    obj(
        {
            "mfa_required": {"type": "boolean", "enum": [True]},
            "mfa_token": string(
                "Send it with a code to `POST /api/v1/auth/merchant/login/mfa` "
                "within 5 minutes."
            ),
        }
    ),
)
REVOKED_KEY = component(
    "RevokedApiKey",
    obj(
        {
            "name": string("The label given at rotation (may be empty)."),
            "mode": string(
                "`live` or `test`: which side the key opened.", enum=["live", "test"]
            ),
            "livemode": LIVEMODE,
            "prefix": string(
                "Masked key, e.g. `service_live_sk_Ab12...` or "
                "`service_test_sk_Cd34...`."
            ),
            "created_at": TIMESTAMP,
            "revoked_at": TIMESTAMP,
        }
    ),
)
MERCHANT_SETTINGS = component(
    "MerchantSettings",
    obj(
        {
            "merchant_id": string("`mer_...`"),
            "webhook_url": string("Empty when not set."),
            "livemode": LIVEMODE,
            "webhook_secret_set": {"type": "boolean"},
            "test_webhook_url": string("The test events' URL; empty when not set."),
            "test_webhook_secret_set": {"type": "boolean"},
            "payout_bank_code": string(),
            "payout_account_number": string(),
            "payout_account_name": string("Resolved by the processor; read-only."),
            "allowed_schedule_types": {
                "type": "array",
                "items": string(enum=list(SCHEDULE_TYPES)),
            },
            "min_installments": {"type": "integer"},
            "max_installments": {"type": "integer"},
            "min_deposit_percent": {"type": "integer"},
            "release_rule": string(
                "`on_deposit`, `on_completion` or `after_installments:N`."
            ),
            "partial_collection_min_percent": {
                "type": "integer",
                "nullable": True,
                "minimum": 1,
                "maximum": 99,
                "description": "Partial collection at the last retry (see "
                "/docs/auto-debit/): the least share of what is owed, in percent, "
                "that a partial debit may take; null when off (the default).",
            },
            "customer_reschedules_allowed": {
                "type": "integer",
                "description": "How many due dates a customer may move per plan "
                "(0: customers cannot reschedule). You may always reschedule.",
            },
            "reschedule_max_days": {
                "type": "integer",
                "description": "How many days later, at most, a customer may move "
                "a due date.",
            },
            "legal_name": string("Empty when not set."),
            "support_email": string("Empty when not set."),
            "support_phone": string("Empty when not set."),
            "fccpc_registration_number": string("Empty when not set."),
            "refund_policy": string("Empty when not set."),
            "legal_settings_missing": {
                "type": "array",
                "items": string(enum=list(LEGAL_SETTINGS)),
                "description": "The key facts' details you have not given yet; "
                "customers see our defaults (your business name, your account's "
                "e-mail, a note that you gave no refund policy) or nothing there.",
            },
            "manual_collection": {
                "type": "boolean",
                "description": "Whether customers may finish checkout without an "
                "auto-debit method, paying the deposit by bank transfer or USSD "
                "and each installment themselves (default false).",
            },
        }
    ),
)

extend_schema_view(
    post=extend_schema(
        operation_id="merchant_register",
        summary="Apply for a merchant account",
        description="Creates a `pending` merchant; staff approve it (within 24 "
        "hours) and enable API access separately. At most 10 sign-ups an hour "
        "from one client address and 3 an hour with one e-mail address (429 "
        "with `Retry-After` beyond).",
        request=RegisterInput,
        responses={201: ok_envelope(MERCHANT), **errors(409, 429)},
    )
)(api.MerchantRegisterApi)

extend_schema_view(
    post=extend_schema(
        operation_id="merchant_login",
        summary="Sign in as a merchant: a merchant JWT pair",
        description="A member with two-factor sign-in gets no tokens here: the "
        "answer is `{mfa_required: true, mfa_token}`, and "
        "`POST /api/v1/auth/merchant/login/mfa` gives the pair. A member whose "
        "team requires two-factor sign-in and who has none set up is refused "
        "(403 `two_factor_required`) until they set it up on the dashboard.",
        request=LoginInput,
        responses={
            200: ok_envelope({"oneOf": [MERCHANT_TOKENS, MFA_CHALLENGE]}),
            **errors(401, 403, 429),
        },
    )
)(api.MerchantLoginApi)

extend_schema_view(
    post=extend_schema(
        operation_id="merchant_login_mfa",
        summary="Sign in as a merchant, second step: the two-factor code",
        description="`mfa_token` from the login's answer (valid 5 minutes, and "
        "no longer once the member's password or role changed) and `code`: the "
        "6-digit code of the member's authenticator app, never used before, or "
        "one of their unused backup codes. A wrong code counts as a failed "
        "sign-in (5 in 15 minutes lock the account: 429). The tokens carry "
        "`mfa_at`, the time of this code: changing the payout account, API "
        "keys or the webhook needs one from the last 10 minutes.",
        request=LoginMfaInput,
        responses={200: ok_envelope(MERCHANT_TOKENS), **errors(401, 429)},
    )
)(api.MerchantLoginMfaApi)

extend_schema_view(
    post=extend_schema(
        operation_id="merchant_api_key_rotate",
        summary="Generate a new API key (the previous one of its mode stops working)",
        description="`mode` chooses the key: `live` (the default, "
        "`service_live_sk_...`) or `test` (`service_test_sk_...`, for [test "
        "mode](/docs/test-mode/)); anything else is a 400. Each mode has its own "
        "key in use: the plaintext appears only in this answer, and the previous "
        "key of the same mode stops working at once. A live key needs the account "
        "approved and API access enabled; a test key only an account not "
        "suspended, so a pending account's member makes one with their JWT. A "
        "test key makes test keys only: `mode: live` with one is a 403 "
        "`live_mode_forbidden`.",
        parameters=[MERCHANT_ID],
        request=RotateKeyInput,
        responses={
            201: ok_envelope(
                obj(
                    {
                        "apiKey": string(
                            "`service_live_sk_...` or `service_test_sk_...`."
                        ),
                        "mode": string(enum=["live", "test"]),
                        "livemode": LIVEMODE,
                    }
                )
            )
        },
    )
)(api.ApiKeyRotateApi)

extend_schema_view(
    get=extend_schema(
        operation_id="merchant_api_key_history",
        summary="List your revoked API keys",
        description="Both modes' revoked keys (each with its `mode`), newest "
        "revocation first, whichever key or token asks.",
        parameters=[MERCHANT_ID, *PAGINATION],
        responses={200: list_envelope(REVOKED_KEY)},
    )
)(api.ApiKeyHistoryApi)

extend_schema_view(
    get=extend_schema(
        operation_id="merchant_settings_get",
        summary="Read your settings",
        parameters=[MERCHANT_ID],
        responses={200: ok_envelope(MERCHANT_SETTINGS)},
    ),
    patch=extend_schema(
        operation_id="merchant_settings_update",
        summary="Change your settings (every field optional)",
        description="`webhook_secret` and `test_webhook_secret` are write-only: "
        "reads show `webhook_secret_set` and `test_webhook_secret_set` instead.",
        parameters=[MERCHANT_ID],
        request=SettingsInput,
        responses={200: ok_envelope(MERCHANT_SETTINGS)},
    ),
)(api.MerchantSettingsApi)


# The audit log's endpoint, described in its subpackage.
from .audit import schema as audit_schema  # noqa: E402, F401
