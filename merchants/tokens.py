"""Password-reset tokens for members of merchants' teams (the dashboard's
"forgot your password")."""

from django.conf import settings
from django.urls import reverse

from config.accounts import PasswordResetTokens

from .team.models import Member

# The account kinds' one reset token (config/accounts.py), working for
# PASSWORD_RESET_TIMEOUT. The salt names the class this first was: changing it
# would end every link already sent.
password_reset_tokens = PasswordResetTokens(
    key_salt="merchants.tokens.MerchantPasswordResetTokens"
)


def password_reset_link(member: Member) -> str:
    path = reverse(
        "merchants_dashboard:password-reset-confirm",
        kwargs={
            "member_id": member.public_id,
            "token": password_reset_tokens.make_token(member),
        },
    )
    return f"{settings.BASE_URL}{path}"
