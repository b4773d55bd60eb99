"""Input-serializer building blocks that refuse what a payments API should refuse.

DRF coerces `123` into `"123"` and `"12"` into `12`; money and identifiers here take
exactly the JSON type the contract names. Unknown body fields are refused with 400,
so a misspelt optional field is reported instead of silently ignored.
"""

import re
from collections.abc import Callable, Mapping
from datetime import date
from urllib.parse import urlsplit

from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    def to_internal_value(self, data):
        if not isinstance(data, Mapping):
            raise serializers.ValidationError(
                {"non_field_errors": ["The request body must be a JSON object."]}
            )
        errors = {
            str(name): ["Unknown field."]
            for name in sorted(data, key=str)
            if name not in self.fields
        }
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as error:
            raise serializers.ValidationError({**error.detail, **errors}) from None
        if errors:
            raise serializers.ValidationError(errors)
        return value

    @classmethod
    def validated(cls, data) -> dict:
        """`data` (a request's body or query) validated: its values, or the 400
        of its errors."""
        serializer = cls(data=data)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


class _JsonString:
    """A text field that takes a JSON string only (DRF would turn 123 into "123")."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictCharField(_JsonString, serializers.CharField):
    pass


class StrictEmailField(_JsonString, serializers.EmailField):
    def to_internal_value(self, data):
        return super().to_internal_value(data).strip().lower()


class StrictURLField(_JsonString, serializers.URLField):
    pass


class StrictIntegerField(serializers.IntegerField):
    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data


ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


class IsoDateField(serializers.DateField):
    """A calendar date written exactly `YYYY-MM-DD`, in a JSON string. DRF's
    formats (`strptime`) and Django's parser also take `2027-1-5`, and Python's
    `fromisoformat` takes `20270105`: a date the contract never shows, which a
    client's bug should meet as a 400, not as a guess."""

    default_error_messages = {
        "invalid": "Enter a date written YYYY-MM-DD, for example 2027-01-05."
    }

    def to_internal_value(self, value):
        if not isinstance(value, str) or not ISO_DATE.fullmatch(value):
            self.fail("invalid")
        try:
            return date.fromisoformat(value)
        except ValueError:
            self.fail("invalid")


def matching(pattern: re.Pattern, message: str) -> Callable[[str], str]:
    """A field's validator: the value when all of it matches `pattern`; else the
    field's 400, `message`."""

    def validate(value: str) -> str:
        if not pattern.fullmatch(value):
            raise serializers.ValidationError(message)
        return value

    return validate


def web_url(value: str, message: str) -> str:
    """`value` when it is an http or https URL; else the field's 400, `message`."""
    if urlsplit(value).scheme not in ("http", "https"):
        raise serializers.ValidationError(message)
    return value
