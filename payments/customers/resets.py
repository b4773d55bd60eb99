"""Password-reset links of customer accounts (DESIGN section 17): the account
kinds' one reset token (config.accounts.PasswordResetTokens, as the merchant
dashboard's), working for `RESET_LINK_HOURS`, once, and no longer once the
password changed. The e-mail is sent by installments.signin.services (this
layer cannot send messages)."""

from dataclasses import dataclass

from django.conf import settings
from django.urls import reverse

from config.accounts import PasswordResetTokens
from config.api import ratelimit

from . import selectors
from .models import Customer

RESET_LINK_HOURS = 1
# At most this many reset e-mails an hour to one account: the form cannot be
# used to flood an inbox.
PASSWORD_RESETS_PER_HOUR = 3

password_reset_tokens = PasswordResetTokens(
    key_salt="payments.customers.resets", max_age_seconds=RESET_LINK_HOURS * 3600
)


@dataclass(frozen=True)
class ResetLink:
    customer: Customer
    url: str
    mark: str  # names this link: the message's subject


def password_reset_link(*, email: str) -> ResetLink | None:
    """A reset link for the customer account of `email`, or None when there is
    none or the account had its `PASSWORD_RESETS_PER_HOUR` links this hour
    (the caller answers the same either way)."""
    customer = selectors.customer_by_email(email)
    if customer is None:
        return None
    window = ratelimit.hit(
        f"password-reset:customer:{customer.pk}",
        limit=PASSWORD_RESETS_PER_HOUR,
        window_seconds=3600,
    )
    if window.exceeded:
        return None
    token = password_reset_tokens.make_token(customer)
    path = reverse(
        "account:password-reset-confirm",
        kwargs={"customer_id": customer.public_id, "token": token},
    )
    return ResetLink(
        customer=customer,
        url=f"{settings.CONSUMER_URL}{path}",
        mark=password_reset_tokens.issued_mark(token),
    )


def password_reset_token_valid(customer: Customer | None, token: str) -> bool:
    return customer is not None and password_reset_tokens.check_token(customer, token)
