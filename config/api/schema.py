"""OpenAPI schema machinery (drf-spectacular): what every endpoint shares.

Each app describes its own endpoints in `<app>/schema.py` (request serializers,
success envelopes, extra error statuses) by applying `extend_schema` to its view
classes; `discover_schema_modules()` imports those modules before a schema is
generated, so no app's `api.py` or `apps.py` needs to know about the schema.

What follows from the plumbing is added to every operation, so that no app
repeats it (applied by config/api/schema_generator.py; the shared pieces are here):
- security: derived from the view's `accepts(...)` permission (API key, merchant
  JWT, customer JWT); views without one are public. Processor callbacks declare
  `auth=PROCESSOR_SIGNATURE` in their app's schema module.
- error responses, each with both error shapes (`Error`): 400 and 413/415 for
  bodies and query parameters, 401/403 for authenticated endpoints, 404 for
  endpoints with path parameters, 429 where requests count against a merchant's
  rate limit, 503 everywhere (the database out of reach, config/api/unavailable.py).
- `additionalProperties: false` on request bodies: StrictSerializer refuses unknown
  fields; their `required` list is the serializer's, PATCH included.
- what request fields admit beyond their type (config/api/request_fields.py), so
  that a value the schema admits is one the server accepts.
"""

from functools import cache

from drf_spectacular.utils import OpenApiParameter

API_PREFIX = "/api/v1/"

# --- security -------------------------------------------------------------------

SECURITY_SCHEMES = {
    "ApiKey": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "service_test_sk_<secret> or service_live_sk_<secret>",
        "description": "A merchant's secret API key, sent from the merchant's server "
        "only: `Authorization: Bearer service_test_sk_...`. A test key "
        "(`service_test_sk_`, from sign-up on) works on test data with the sandbox "
        "processor; a live key (`service_live_sk_`) on live data, once the account "
        "is approved and API access is enabled ([test mode](/docs/test-mode/)). "
        "Generated in the dashboard or with `POST /api/v1/merchant/{merchant_id}/"
        "rotate-api-key`.",
    },
    "MerchantJWT": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "A merchant access token from `POST /api/v1/auth/merchant/"
        "login` (15 minutes; renew with `POST /api/v1/auth/token/refresh`).",
    },
    "CustomerJWT": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "JWT",
        "description": "A customer (shopper) access token from `POST /api/v1/auth/"
        "customer/login` or `/register` (15 minutes; renew with `POST /api/v1/auth/"
        "token/refresh`).",
    },
    "ProcessorSignature": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Paystack-Signature",
        "description": "Processor callbacks only: hex HMAC-SHA512 of the raw request "
        "body keyed with the processor secret. A missing or wrong signature is a 401.",
    },
}
SCHEME_OF_KIND = {
    "api_key": "ApiKey",
    "merchant_jwt": "MerchantJWT",
    "customer_jwt": "CustomerJWT",
}
PROCESSOR_SIGNATURE = [{"ProcessorSignature": []}]
RATE_LIMITED_KINDS = {"api_key", "merchant_jwt"}


def accepted_kinds(view) -> tuple[str, ...] | None:
    """The credential kinds a view's `accepts(...)` permission takes, or None."""
    for permission in getattr(view, "permission_classes", []):
        kinds = getattr(permission, "accepted_kinds", None)
        if kinds:
            return tuple(kinds)
    return None


# --- shared schemas ----------------------------------------------------------------

_components: dict[str, dict] = {}


def component(name: str, schema: dict) -> dict:
    """Register a named schema under components/schemas; returns a `$ref` to it."""
    _components[name] = schema
    return ref(name)


def ref(name: str) -> dict:
    """A `$ref` to the component another module registers under `name` (one
    that module may not import: a lower layer naming a higher one's schema)."""
    return {"$ref": f"#/components/schemas/{name}"}


def obj(properties: dict, *, optional: tuple[str, ...] = (), **extra) -> dict:
    """An object schema whose properties are all required except `optional`."""
    return {
        "type": "object",
        "properties": properties,
        "required": [name for name in properties if name not in optional],
        **extra,
    }


def string(description: str = "", **extra) -> dict:
    schema = {"type": "string", **extra}
    if description:
        schema["description"] = description
    return schema


def nullable(schema: dict) -> dict:
    return {**schema, "nullable": True}


TIMESTAMP = string("UTC ISO 8601 timestamp ending in Z.", format="date-time")
DATE = string("Calendar date (Lagos), YYYY-MM-DD.", format="date")
KOBO = {"type": "integer", "description": "Amount in kobo (100 kobo = 1 naira)."}
TRUE = {"type": "boolean", "enum": [True]}
LIVEMODE = {
    "type": "boolean",
    "description": "`true` for live data, `false` for test data (made with a "
    "`service_test_sk_` key or the dashboard's test switch, on the sandbox "
    "processor: [test mode](/docs/test-mode/)).",
}

ERROR_DETAIL = component(
    "ExceptionError",
    obj(
        {
            "detail": string("One readable sentence."),
            "errors": {
                "type": "object",
                "description": "Validation errors only: messages by field name.",
                "additionalProperties": True,
            },
        },
        optional=("errors",),
    ),
)
SOFT_ERROR = component(
    "SoftError",
    obj(
        {
            "ok": {"type": "boolean", "enum": [False]},
            "error": obj(
                {
                    "code": string(
                        "A code from the [list of error codes]"
                        "(/docs/errors/#error-codes)."
                    ),
                    "message": string(),
                }
            ),
        }
    ),
)
ERROR = component(
    "Error",
    {
        "description": "Either error shape: the exception shape `{detail, errors?}` "
        "(framework, authentication, validation) or the soft shape `{ok: false, "
        "error: {code, message}}` (business rules). Check the status first.",
        "oneOf": [ERROR_DETAIL, SOFT_ERROR],
    },
)

ERROR_DESCRIPTIONS = {
    400: "Malformed payload, missing or invalid field, or a business rule on the "
    "input (soft shape with a code).",
    401: "Missing, malformed, expired or revoked credential.",
    402: "The processor declined the payment (`payment_failed`).",
    403: "The credential is valid but not allowed here (wrong kind, another "
    "merchant's resource, merchant not active, API access not enabled).",
    404: "The resource does not exist, or is not yours.",
    409: "Conflict with the resource's current state.",
    413: "Request body over 1 MiB.",
    415: "The body is not `application/json`.",
    422: "The request is well-formed but breaks a business rule.",
    429: "Rate limit exceeded: retry after the `Retry-After` seconds.",
    502: "The payment processor failed.",
    503: "The service cannot reach its database for a moment "
    "(`service_unavailable`): retry after the `Retry-After` seconds.",
    504: "The payment processor timed out.",
}


def ok_envelope(data: dict | None = None, **siblings: dict) -> dict:
    """`{ok: true, data, <siblings>}`; every named part is required."""
    properties = {"ok": TRUE}
    if data is not None:
        properties["data"] = data
    properties.update(siblings)
    return obj(properties)


def list_envelope(item: dict) -> dict:
    return ok_envelope(
        {"type": "array", "items": item},
        total={"type": "integer", "minimum": 0, "description": "Items in all pages."},
    )


def errors(*statuses: int) -> dict:
    """`responses` entries for extra error statuses of one endpoint."""
    return {status: ERROR for status in statuses}


PAGINATION = [
    OpenApiParameter(
        "limit",
        {"type": "integer", "minimum": 1, "maximum": 100},
        description="Page size, 1 to 100 (default 50).",
    ),
    OpenApiParameter(
        "offset",
        {"type": "integer", "minimum": 0},
        description="Items to skip (default 0).",
    ),
]


CSV_FORMAT = OpenApiParameter(
    "format",
    {"type": "string", "enum": ["json", "csv"]},
    description="`csv`: every row the filters match as a CSV file (not one page; "
    "`limit` and `offset` are checked, then ignored), the same as `Accept: "
    "text/csv`. See [CSV exports](/docs/api/#csv-exports).",
)


def with_csv(json_schema: dict, columns: str) -> dict:
    """`responses` of a list that also answers CSV: the JSON envelope, or the
    CSV file whose `columns` are described in one sentence."""
    return {
        (200, "application/json"): json_schema,
        (200, "text/csv"): {
            "type": "string",
            "description": f"CSV with a header line: {columns} Money columns are "
            "kobo, each followed by `<name>_naira`; timestamps UTC ISO 8601.",
        },
    }


def path_id(name: str, prefix: str, description: str) -> OpenApiParameter:
    """A public id in the path (`mer_...`, `pm_...`): its shape is documented."""
    return OpenApiParameter(
        name,
        {"type": "string", "pattern": f"^{prefix}_[0-9A-Za-z]{{1,64}}$"},
        OpenApiParameter.PATH,
        description=f"{description} (`{prefix}_...`).",
    )


# --- the endpoint config.api serves itself -------------------------------------------


@cache
def describe_token_refresh() -> None:
    """Applied once, before a schema is made (schema_generator.py): at import it
    would import the views while DRF still reads its schema settings."""
    from drf_spectacular.utils import extend_schema, extend_schema_view

    from .views import RefreshInput, TokenRefreshApi

    tokens = component(
        "TokenPair",
        obj(
            {
                "access": string("A new access JWT (15 minutes)."),
                "refresh": string("A new refresh JWT; the one sent is used up."),
            }
        ),
    )
    extend_schema_view(
        post=extend_schema(
            operation_id="token_refresh",
            summary="Exchange a refresh JWT for a new pair (merchant or customer)",
            description="The new pair belongs to the same sign-in: no token of it "
            "lives past 30 days after the login or registration that started it. A "
            "password change or reset revokes every earlier access and refresh token "
            "(401, sign in again). Answered with `Cache-Control: no-store`.",
            request=RefreshInput,
            responses={200: ok_envelope(tokens), 401: ERROR},
        )
    )(TokenRefreshApi)
