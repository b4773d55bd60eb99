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
  rate limit.
- `additionalProperties: false` on request bodies: StrictSerializer refuses unknown
  fields; their `required` list is the serializer's, PATCH included.
- what request strings admit beyond type and length (see "request fields" below),
  so that a value the schema admits is one the server accepts.
"""

from collections.abc import Callable
from http import HTTPStatus

from django.contrib.auth.password_validation import (
    MinimumLengthValidator,
    NumericPasswordValidator,
    get_default_password_validators,
)
from django.core.validators import URLValidator
from django.utils.module_loading import autodiscover_modules
from drf_spectacular import openapi
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

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


# --- request fields -------------------------------------------------------------------
#
# drf-spectacular maps a serializer field's type, lengths and bounds. What else the
# server enforces is added here, for every input serializer:
# - DRF refuses a NUL character in any string (400);
# - a trimmed string field (DRF's default) strips surrounding whitespace before its
#   blank and length checks, so a required one needs a visible character;
# - a URL field takes what Django's URLValidator takes: its schemes, a host name of
#   at most 253 characters, no whitespace.
# What a serializer's own `validate_<field>` checks (a pattern, an enum, bounds), its
# app's schema module says with `describe_fields(...)`.

# What str.strip() removes (str.isspace()). Not ECMA's `\s`, which lacks \x1c-\x1f
# and \x85 and has \ufeff.
SPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NUL = r"\x00"
CONTROL = r"\x00-\x1f\x7f"


def text_pattern(
    *, refused: str = NUL, min_length: int = 0, max_length: int | None = None
) -> str:
    """A trimmed string (DRF's default): the server strips surrounding whitespace
    before its checks, so the bounds count from the first to the last visible
    character, whatever whitespace surrounds them, and none of the `refused`
    characters may come in between."""
    inner, visible = f"[^{refused}]", f"[^{refused}{SPACE}]"
    most = "" if max_length is None else max_length - 2
    if max_length == 1:
        core = visible
    elif min_length <= 1:
        core = f"{visible}(?:{inner}{{0,{most}}}{visible})?"
    else:
        core = f"{visible}{inner}{{{min_length - 2},{most}}}{visible}"
    if min_length == 0:
        core = f"(?:{core})?"
    return f"^[{SPACE}]*{core}[{SPACE}]*$"


def new_password() -> dict:
    """Django's password validators (settings.AUTH_PASSWORD_VALIDATORS) on a new
    password: the minimum length and "not all digits" as schema, "not a common
    password" and "not too like the e-mail address or names" as words."""
    validators = get_default_password_validators()
    min_length = max(
        (
            validator.min_length
            for validator in validators
            if isinstance(validator, MinimumLengthValidator)
        ),
        default=1,
    )
    schema = {
        "minLength": min_length,
        "description": f"{min_length} to 128 characters, not all digits, not a "
        "common password, not too similar to the e-mail address or names.",
    }
    if any(isinstance(validator, NumericPasswordValidator) for validator in validators):
        schema["pattern"] = f"^[^{NUL}]*[^{NUL}0-9][^{NUL}]*$"
    return schema


_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
DNS_NAME = rf"(?:{_LABEL}\.)+[a-zA-Z]{{2,63}}"
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
ANY_HOST = rf"(?:{DNS_NAME}|localhost|{_OCTET}(?:\.{_OCTET}){{3}})"
# URLValidator takes any five digits; urlsplit's `.port` only 0-65535.
FIVE_DIGITS = "[0-9]{1,5}"
PORT_NUMBER = (
    "(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]"
    "|6553[0-5])"
)


def url_schema(
    schemes: tuple[str, ...], *, host: str = ANY_HOST, port: str = FIVE_DIGITS
) -> dict:
    """An absolute URL Django's URLValidator takes with these schemes: by default a
    host name, `localhost` or an IPv4 address, an optional port, and a path,
    query or fragment without whitespace; the host at most 253 characters (a `not`
    rather than a lookahead, which generators cannot steer)."""
    return {
        "pattern": f"^(?:{'|'.join(schemes)})://{host}(?::{port})?"
        f"(?:[/?#][^{NUL}{SPACE}]*)?$",
        "not": {"pattern": "^[^:]*://[^:/?#]{254}"},
    }


_described: dict[tuple[type, str], dict] = {}


def describe_fields(serializer: type, **fields: dict | Callable[[], dict]) -> None:
    """What `serializer`'s fields admit beyond what their type says (the checks of
    its `validate_<field>` methods), merged into their schemas; applies to its
    subclasses too. A callable is asked at each generation (for what moves with
    the date)."""
    for name, schema in fields.items():
        _described[(serializer, name)] = schema


_described_bodies: dict[type, dict] = {}


def describe_body(serializer: type, **keywords) -> None:
    """Keywords of a request body as a whole (what its fields check together),
    merged into `serializer`'s schema."""
    _described_bodies[serializer] = keywords


def _description_of(serializer, name: str) -> dict:
    for klass in type(serializer).__mro__:
        described = _described.get((klass, name))
        if described is not None:
            return described() if callable(described) else described
    return {}


_REFUSED = "refused characters"


def refusing(characters: str, description: str) -> dict:
    """For `describe_fields`: a text field whose serializer also refuses these
    characters (a regex class body, like CONTROL)."""
    return {_REFUSED: characters, "description": description}


def _implied_by_field(field, schema: dict, refused: str = NUL) -> dict:
    """`schema` (drf-spectacular's, for one value) with what the DRF field
    enforces beyond it."""
    if isinstance(field, serializers.URLField):
        # `format: uri` (RFC 3986) refuses some of what URLValidator takes (a
        # backslash, port 70000): the pattern says what it takes instead. It
        # leaves out the surrounding whitespace the server trims, which no client
        # sends, so that `maxLength` can stay.
        schemes = next(
            validator.schemes
            for validator in field.validators
            if isinstance(validator, URLValidator)
        )
        schema = {key: value for key, value in schema.items() if key != "format"}
        return {**schema, **url_schema(tuple(schemes))}
    if isinstance(field, serializers.EmailField) or not isinstance(
        field, serializers.CharField
    ):
        return schema
    min_length = field.min_length or 0
    if not field.allow_blank:
        min_length = max(min_length, 1)
    if not field.trim_whitespace:
        if min_length:
            schema = {**schema, "minLength": min_length}
        return {**schema, "pattern": f"^[^{NUL}]*$"}
    # Lengths count after trimming: the pattern holds them (a padded value is no
    # longer than its trimmed self to the server).
    schema = {k: v for k, v in schema.items() if k not in ("minLength", "maxLength")}
    pattern = text_pattern(
        refused=refused, min_length=min_length, max_length=field.max_length
    )
    return {**schema, "pattern": pattern}


def _request_property(field, schema: dict, described: dict) -> dict:
    """A request field's schema: drf-spectacular's, what the field implies, then
    what its serializer's own checks admit (`describe_fields`). The value branch
    is the first of the `oneOf` drf-spectacular makes of an optional format
    field (the value or "")."""
    branches = schema.get("oneOf")
    value = branches[0] if branches else schema
    described = dict(described)
    refused = described.pop(_REFUSED, NUL)
    own_values = "enum" in described or "pattern" in described
    if isinstance(field, serializers.URLField) or not own_values:
        value = _implied_by_field(field, value, refused)
    value = {**value, **described}
    if branches:
        return {**schema, "oneOf": [value, *branches[1:]]}
    return value


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
            for name, field in serializer.fields.items():
                properties[name] = _request_property(
                    field, properties[name], _description_of(serializer, name)
                )
            schema.update(_described_bodies.get(type(serializer), {}))
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
            request=RefreshInput,
            responses={200: ok_envelope(tokens), 401: ERROR},
        )
    )(TokenRefreshApi)


_describe_token_refresh()
