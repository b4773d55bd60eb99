"""Password checks shared by the account kinds (Django's validators and hashers)."""

from django.contrib.auth.hashers import make_password
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from rest_framework.exceptions import ValidationError


def validate_new_password(password: str, *, account) -> None:
    """Django's password validators, reported as a 400 on the `password` field."""
    try:
        validate_password(password, user=account)
    except DjangoValidationError as error:
        raise ValidationError({"password": list(error.messages)}) from None


def burn_hash_time(password: str) -> None:
    """Spend a hash's worth of time when no account matched, so response times do
    not tell which e-mail addresses have accounts."""
    make_password(password)
