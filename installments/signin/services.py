"""A customer's way in without a password to remember (DESIGN section 17):
the password-reset e-mail and the one-time code by e-mail and SMS, each sent
through the recorded, swept message pipeline (notifications/).

Other features call `sign_in_code_send` and `sign_in_code_check` (a pay link's
page unlocks paying with a saved method with purpose `SignInCode.Purpose.PAY`).
The rules of codes and reset links live with the customer accounts
(payments/customers/codes.py, resets.py); this layer only adds the messages.
"""

from django.db import transaction

from config.api import ratelimit
from payments.customers import resets
from payments.customers.codes import sign_in_code_check, sign_in_code_issue
from payments.customers.models import Customer, SignInCode

from ..notifications.services import messages_send_on_commit
from . import texts

__all__ = [
    "SIGN_IN_CODES_PER_HOUR",
    "password_reset_send",
    "sign_in_code_check",
    "sign_in_code_send",
]

# At most this many codes an hour to one account and purpose: asking for codes
# cannot flood an inbox or a phone (nor our SMS bill).
SIGN_IN_CODES_PER_HOUR = 5


def password_reset_send(*, email: str) -> None:
    """E-mail a reset link when `email` belongs to a customer account.

    Says nothing either way, so the caller cannot tell which addresses have
    accounts; at most `resets.PASSWORD_RESETS_PER_HOUR` e-mails an hour per
    account. The message is recorded now and sent after the commit (the sweep
    sends it if that task is lost)."""
    with transaction.atomic():
        link = resets.password_reset_link(email=email)
        if link is not None:
            messages_send_on_commit(
                texts.password_reset(link), task_name="send-password-reset"
            )


def sign_in_code_send(
    *, customer: Customer, purpose: str = SignInCode.Purpose.SIGN_IN
) -> bool:
    """Send `customer` a new one-time code for `purpose` by e-mail and, with a
    mobile number on file, SMS; the code sent before for that purpose stops
    working. False (nothing sent, the earlier code still works) when the
    account had its `SIGN_IN_CODES_PER_HOUR` codes for `purpose` this hour.

    Check what the customer types with `sign_in_code_check(customer=,
    code=, purpose=)`: True once, for the right digits within 10 minutes and
    before the fifth wrong try."""
    window = ratelimit.hit(
        f"sign-in-code:{purpose}:{customer.pk}",
        limit=SIGN_IN_CODES_PER_HOUR,
        window_seconds=3600,
    )
    if window.exceeded:
        return False
    with transaction.atomic():
        row, code = sign_in_code_issue(customer=customer, purpose=purpose)
        messages_send_on_commit(
            texts.sign_in_code(row, code, customer=customer),
            task_name="send-sign-in-code",
        )
    return True
