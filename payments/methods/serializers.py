"""HTTP in/out for a customer's payment methods (endpoints 10-20)."""

import re
from datetime import date

from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from config.api.formats import iso_utc
from config.api.serializers import (
    IsoDateField,
    StrictBooleanField,
    StrictCharField,
    StrictSerializer,
    StrictURLField,
    matching,
    web_url,
)

from ..customers.serializers import validate_phone
from ..gateway.selectors import bank_by_code

OTP_PATTERN = re.compile(r"[0-9]{4,8}")
ACCOUNT_NUMBER_PATTERN = re.compile(r"[0-9]{10}")


class CustomerIdInput(StrictSerializer):
    customer_id = StrictCharField(max_length=40)


class MethodListQuery(serializers.Serializer):
    """Query of endpoint 10 (`limit`/`offset` are the paginator's): which
    side's methods, live unless `livemode=false` (docs/test-mode.md)."""

    livemode = serializers.BooleanField(required=False, default=True)


class InitializeCardInput(CustomerIdInput):
    callback_url = StrictURLField(max_length=2000)
    is_default = StrictBooleanField(required=False, default=False)
    # The side the card is saved on (docs/test-mode.md): false saves a test
    # card, at the sandbox, for test checkouts only.
    livemode = StrictBooleanField(required=False, default=True)

    def validate_callback_url(self, value):
        return web_url(value, "callback_url must be an http(s) URL.")


class VerifyCardInput(CustomerIdInput):
    reference = StrictCharField(max_length=100)
    is_default = StrictBooleanField(required=False)


validate_account_number = matching(
    ACCOUNT_NUMBER_PATTERN,
    "account_number must be exactly 10 digits (a NUBAN account number).",
)


@extend_schema_field(
    {
        "type": "boolean",
        "enum": [True],
        "description": "true: the customer was shown the mandate terms and ticked "
        "their box; anything else is 422 `terms_not_accepted`.",
    }
)
class AcceptedField(StrictBooleanField):
    pass


class InitiateMandateInput(StrictSerializer):
    bank_code = StrictCharField(max_length=16)
    account_number = StrictCharField(max_length=20)
    is_default = StrictBooleanField(required=False, default=False)
    # The side the mandate is made on (docs/test-mode.md), as initialize-card's.
    livemode = StrictBooleanField(required=False, default=True)
    # The customer ticked the box of the mandate terms (methods/terms.py):
    # true; the API answers anything else 422 terms_not_accepted first.
    terms_accepted = AcceptedField()

    def validate_bank_code(self, value):
        if bank_by_code(value) is None:
            raise serializers.ValidationError(
                f"Unknown bank_code '{value}': GET /api/v1/payment-methods/banks "
                "lists the supported banks."
            )
        return value

    def validate_account_number(self, value):
        return validate_account_number(value)


class MandateStepInput(CustomerIdInput):
    """Fields endpoints 15-18 share; the bank fields repeat initiate's and, when
    sent, must match the mandate (bank_name is accepted and not used: the
    label takes the name from the bank list)."""

    reference = StrictCharField(max_length=100)
    bank_code = StrictCharField(max_length=16, required=False)
    bank_name = StrictCharField(max_length=100, required=False, allow_blank=True)
    account_number = StrictCharField(max_length=20, required=False)
    is_default = StrictBooleanField(required=False)

    def validate_account_number(self, value):
        return validate_account_number(value)


class SubmitOtpInput(MandateStepInput):
    otp = StrictCharField(max_length=20, trim_whitespace=True)

    validate_otp = staticmethod(matching(OTP_PATTERN, "otp must be 4 to 8 digits."))


class SubmitBirthdayInput(MandateStepInput):
    birthday = IsoDateField()

    def validate_birthday(self, value):
        if not date(1900, 1, 1) <= value < timezone.localdate():
            raise serializers.ValidationError(
                "birthday must be a past date (YYYY-MM-DD) after 1900-01-01."
            )
        return value


class SubmitPhoneInput(MandateStepInput):
    phone = StrictCharField(min_length=7, max_length=20)

    def validate_phone(self, value):
        return validate_phone(value)


class VerifyMandateInput(MandateStepInput):
    pass


def payment_method_output(method) -> dict:
    out = {
        "id": method.public_id,
        "customer_id": method.customer.public_id,
        "type": method.type,
        "label": method.label,
        "last4": method.last4,
        "is_default": method.is_default,
        "is_active": method.is_active,
        "livemode": method.livemode,
        "created_at": iso_utc(method.created_at),
    }
    if method.type == method.Type.CARD:
        out.update(
            brand=method.brand, exp_month=method.exp_month, exp_year=method.exp_year
        )
    else:
        out.update(bank_code=method.bank_code, bank_name=method.bank_name)
    return out


def bank_output(bank) -> dict:
    return {"name": bank.name, "code": bank.code}
