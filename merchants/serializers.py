from config.api.formats import iso_utc
from config.api.serializers import (
    StrictCharField,
    StrictEmailField,
    StrictSerializer,
    StrictURLField,
)


class RegisterInput(StrictSerializer):
    email = StrictEmailField(max_length=254)
    password = StrictCharField(max_length=128, trim_whitespace=False)
    business_name = StrictCharField(min_length=2, max_length=200)
    business_url = StrictURLField(max_length=200)


class LoginInput(StrictSerializer):
    email = StrictEmailField(max_length=254)
    password = StrictCharField(max_length=128, trim_whitespace=False)


class RotateKeyInput(StrictSerializer):
    name = StrictCharField(max_length=100, required=False, allow_blank=True, default="")


def merchant_output(merchant) -> dict:
    return {
        "merchantId": merchant.public_id,
        "status": merchant.status,
        "email": merchant.email,
    }


def revoked_key_output(key) -> dict:
    return {
        "name": key.name,
        "prefix": key.masked_prefix,
        "created_at": iso_utc(key.created_at),
        "revoked_at": iso_utc(key.revoked_at),
    }
