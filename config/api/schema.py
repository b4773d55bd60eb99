"""OpenAPI schema machinery (drf-spectacular): what every endpoint shares.

Each app describes its own endpoints in `<app>/schema.py` (request serializers,
success envelopes, extra error statuses) by applying `extend_schema` to its view
classes; `discover_schema_modules()` imports those modules before a schema is
generated, so no app's `api.py` or `apps.py` needs to know about the schema.

This module adds what follows from the plumbing, so that no app repeats it:
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

from http import HTTPStatus

from django.utils.module_loading import autodiscover_modules
from drf_spectacular import openapi
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.plumbing import force_instance
from drf_spectacular.utils import OpenApiParameter

from .request_fields import body_description, request_property
from .serializers import StrictSerializer

API_PREFIX = "/api/v1/"

# --- security -------------------------------------------------------------------

SECURITY_SCHEMES = {
    "ApiKey": {
        "type": "http",
        "scheme": "bearer",
        "bearerFormat": "service_live_sk_<secret>",
        "description": "A merchant's secret API key, sent from the merchant's server "
        "only: `Authorization: Bearer service_live_sk_...`. Issued by endpoint 7 or "
        "the dashboard once the account is approved and API access is enabled.",
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
                    "code": string("A code from the documented list (docs/errors.md)."),
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


def path_id(name: str, prefix: str, description: str) -> OpenApiParameter:
    """A public id in the path (`mer_...`, `pm_...`): its shape is documented."""
    return OpenApiParameter(
        name,
        {"type": "string", "pattern": f"^{prefix}_[0-9A-Za-z]{{1,64}}$"},
        OpenApiParameter.PATH,
        description=f"{description} (`{prefix}_...`).",
    )


# --- the generator and the per-operation defaults ------------------------------------


def discover_schema_modules() -> None:
    """Import every app's `schema` module (like the admin's `admin` modules)."""
    autodiscover_modules("schema")


class Generator(SchemaGenerator):
    def get_schema(self, request=None, public=False):
        discover_schema_modules()
        return super().get_schema(request=request, public=public)


class AutoSchema(openapi.AutoSchema):
    def get_auth(self):
        kinds = accepted_kinds(self.view)
        if not kinds:
            return []
        return [{SCHEME_OF_KIND[kind]: []} for kind in kinds]

    def get_tags(self):
        parts = self.path.removeprefix(API_PREFIX).split("/")
        return [parts[0]]

    def _map_basic_serializer(self, serializer, direction):
        schema = super()._map_basic_serializer(serializer, direction)
        if isinstance(serializer, StrictSerializer):
            schema["additionalProperties"] = False
            properties = schema["properties"]
            for name in serializer.fields:
                properties[name] = request_property(serializer, name, properties[name])
            schema.update(body_description(serializer))
            # drf-spectacular drops `required` for PATCH (a partial update); these
            # serializers are never partial: what they require, PATCH requires too.
            required = sorted(
                name for name, field in serializer.fields.items() if field.required
            )
            if required:
                schema["required"] = required
            else:
                schema.pop("required", None)
        return schema

    def _get_request_for_media_type(self, serializer, direction="request"):
        schema, required = super()._get_request_for_media_type(serializer, direction)
        if isinstance(serializer, dict):
            # A body described by hand (the processor callbacks) is required when
            # it requires properties, as drf-spectacular decides for serializers.
            described = serializer
            if "$ref" in described:
                described = _components[described["$ref"].rsplit("/", 1)[1]]
            required = bool(described.get("required"))
        elif isinstance(force_instance(serializer), StrictSerializer):
            # Each field optional, yet the body must name one of them (every
            # branch of its described oneOf/anyOf requires one): required too.
            described = body_description(force_instance(serializer))
            branches = described.get("oneOf") or described.get("anyOf") or []
            if branches and all(branch.get("required") for branch in branches):
                required = True
        return schema, required

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for status in self._implied_error_statuses():
            code = str(status)
            if code not in responses:
                responses[code] = {
                    "description": ERROR_DESCRIPTIONS[status],
                    "content": {"application/json": {"schema": ERROR}},
                }
        for code, response in responses.items():
            if response.get("description") or not code.isdigit():
                continue
            status = int(code)
            response["description"] = ERROR_DESCRIPTIONS.get(
                status, HTTPStatus(status).phrase
            )
        return dict(sorted(responses.items()))

    def _implied_error_statuses(self) -> set[int]:
        statuses = set()
        if self.method in ("POST", "PUT", "PATCH"):
            statuses |= {400, 413, 415}
        if self.method == "GET" and self._query_parameter_names():
            statuses.add(400)
        kinds = set(accepted_kinds(self.view) or ())
        if self.get_auth():
            statuses.add(401)
        if kinds:
            statuses.add(403)
        if "{" in self.path:
            statuses.add(404)
        if kinds & RATE_LIMITED_KINDS:
            statuses.add(429)
        statuses.add(503)  # any operation may meet a database outage
        return statuses

    def _query_parameter_names(self) -> set[str]:
        return {
            parameter["name"]
            for parameter in self._get_parameters()
            if parameter.get("in") == "query"
        }


# --- hooks ------------------------------------------------------------------------


def keep_api_endpoints(endpoints):
    """Only /api/v1 routes, each once: `api_path` also serves a trailing-slash twin."""
    kept = []
    paths = {path for path, *_ in endpoints}
    for path, path_regex, method, callback in endpoints:
        if not path.startswith(API_PREFIX):
            continue
        if path.endswith("/") and path.rstrip("/") in paths:
            continue
        kept.append((path, path_regex, method, callback))
    return kept


def add_components(result, generator, request, public):
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.update(_components)
    result["components"]["securitySchemes"] = SECURITY_SCHEMES
    result["components"] = dict(sorted(result["components"].items()))
    return result


# --- the endpoint config.api serves itself -------------------------------------------


def _describe_token_refresh() -> None:
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


_describe_token_refresh()
