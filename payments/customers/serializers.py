"""HTTP in/out shapes of customer accounts."""

import re

from config.api.formats import iso_utc
from config.api.serializers import (
    StrictCharField,
    StrictEmailField,
    StrictSerializer,
    matching,
)

PHONE_PATTERN = re.compile(r"\+?[0-9]+")


validate_phone = matching(
    PHONE_PATTERN, "Enter a phone number of digits, optionally starting with +."
)


class CustomerRegisterInput(StrictSerializer):
    email = StrictEmailField(max_length=254)
    password = StrictCharField(max_length=128, trim_whitespace=False)
    first_name = StrictCharField(min_length=1, max_length=100)
    last_name = StrictCharField(min_length=1, max_length=100)
    phone = StrictCharField(min_length=7, max_length=20)

    def validate_phone(self, value):
        return validate_phone(value)


class CustomerLoginInput(StrictSerializer):
    email = StrictEmailField(max_length=254)
    password = StrictCharField(max_length=128, trim_whitespace=False)


def customer_output(customer) -> dict:
    return {
        "customer_id": customer.public_id,
        "email": customer.email,
        "first_name": customer.first_name,
        "last_name": customer.last_name,
        "phone": customer.phone,
        "created_at": iso_utc(customer.created_at),
    }
