"""Password-reset tokens for merchants (the dashboard's "forgot your password")."""

from django.conf import settings
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.urls import reverse

from .models import Merchant


class MerchantPasswordResetTokens(PasswordResetTokenGenerator):
    """Django's reset-token scheme (timestamped HMAC, PASSWORD_RESET_TIMEOUT), keyed
    on the merchant's password hash: a token stops working once it has been used,
    because using it changes the hash. Merchants have no last-login time to add."""

    key_salt = "merchants.tokens.MerchantPasswordResetTokens"

    def _make_hash_value(self, user, timestamp):
        return f"{user.pk}{user.password}{timestamp}{user.email.lower()}"


password_reset_tokens = MerchantPasswordResetTokens()


def password_reset_link(merchant: Merchant) -> str:
    path = reverse(
        "merchants_dashboard:password-reset-confirm",
        kwargs={
            "merchant_id": merchant.public_id,
            "token": password_reset_tokens.make_token(merchant),
        },
    )
    return f"{settings.BASE_URL}{path}"
