"""What request fields admit beyond their type, for the OpenAPI schema.

drf-spectacular maps a serializer field's type, lengths and bounds. What else the
server enforces is added to every input serializer's schema (config.api.schema's
AutoSchema calls `request_property` and `body_description`):
- DRF refuses a NUL character in any string (400);
- a trimmed string field (DRF's default) strips surrounding whitespace before its
  blank and length checks, so a required one needs a visible character, and its
  lengths count after trimming;
- a URL field takes what Django's URLValidator takes: its schemes, a host name of
  at most 253 characters, no whitespace.
What a serializer's own `validate_<field>` checks (a pattern, an enum, bounds), its
app's schema module says with `describe_fields(...)`; what its fields check
together, with `describe_body(...)`.
"""

from collections.abc import Callable

from django.contrib.auth.password_validation import (
    MinimumLengthValidator,
    NumericPasswordValidator,
    get_default_password_validators,
)
from django.core.validators import URLValidator
from rest_framework import serializers

from config import text

# What str.strip() removes (str.isspace()). Not ECMA's `\s`, which lacks \x1c-\x1f
# and \x85 and has \ufeff.
SPACE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NUL = r"\x00"
CONTROL = text.CONTROL


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


def webhook_url(description: str) -> Callable[[], dict]:
    """What the delivery guard lets a webhook URL be, under the settings of the
    moment (saving it in the settings and endpoint 21 alike): https (http too where
    WEBHOOK_ALLOW_HTTP), a port that parses, no credentials, a host name (private
    addresses too where WEBHOOK_ALLOW_PRIVATE_NETWORKS). A name that resolves to a
    private address is refused when sending, which no pattern can tell."""

    def schema() -> dict:
        from django.conf import settings

        schemes = ("http", "https") if settings.WEBHOOK_ALLOW_HTTP else ("https",)
        private = settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS
        host = ANY_HOST if private else DNS_NAME
        return {
            **url_schema(schemes, host=host, port=PORT_NUMBER),
            "description": description,
        }

    return schema


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


def body_description(serializer) -> dict:
    """What `describe_body` says of this serializer's body."""
    return _described_bodies.get(type(serializer), {})


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


def request_property(serializer, name: str, schema: dict) -> dict:
    """The schema of a request field: drf-spectacular's `schema`, what the field
    implies, then what its serializer's own checks admit (`describe_fields`). The
    value branch is the first of the `oneOf` drf-spectacular makes of an optional
    format field (the value or "")."""
    field = serializer.fields[name]
    branches = schema.get("oneOf")
    value = branches[0] if branches else schema
    described = dict(_description_of(serializer, name))
    refused = described.pop(_REFUSED, NUL)
    own_values = "enum" in described or "pattern" in described
    if isinstance(field, serializers.URLField) or not own_values:
        value = _implied_by_field(field, value, refused)
    value = {**value, **described}
    if branches:
        return {**schema, "oneOf": [value, *branches[1:]]}
    return value
