"""How the OpenAPI document is made (drf-spectacular's generator, the
per-operation defaults and the hooks): what config/api/schema.py says every
endpoint shares, applied to each operation. Named in settings
(`DEFAULT_SCHEMA_CLASS`, `DEFAULT_GENERATOR_CLASS`, the hooks)."""

from http import HTTPStatus

from django.utils.module_loading import autodiscover_modules
from drf_spectacular import openapi
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.plumbing import force_instance, get_override

from . import reference
from .request_fields import body_description, request_property
from .schema import (
    API_PREFIX,
    ERROR,
    ERROR_DESCRIPTIONS,
    RATE_LIMITED_KINDS,
    SCHEME_OF_KIND,
    SECURITY_SCHEMES,
    _components,
    accepted_kinds,
    describe_token_refresh,
)
from .serializers import StrictSerializer

# --- the generator and the per-operation defaults ------------------------------------


def discover_schema_modules() -> None:
    """Import every app's `schema` module (like the admin's `admin` modules), and
    describe the endpoint config.api serves itself."""
    autodiscover_modules("schema")
    describe_token_refresh()


class Generator(SchemaGenerator):
    def get_schema(self, request=None, public=False):
        discover_schema_modules()
        return super().get_schema(request=request, public=public)


class AutoSchema(openapi.AutoSchema):
    """Docstrings are written for maintainers: an operation or a body is described
    only by what its app's schema module says (`extend_schema(description=...)`),
    never by the docstring of its view or serializer."""

    def get_description(self):
        return ""

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
        if get_override(serializer, "description") is None:
            schema.pop("description", None)
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
    result["info"]["description"] = reference.INTRODUCTION
    result["tags"] = reference.TAGS
    result["components"] = dict(sorted(result["components"].items()))
    return result
