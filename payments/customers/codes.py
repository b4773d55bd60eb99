"""One-time sign-in codes (DESIGN section 17): 6 digits, valid
`SIGN_IN_CODE_MINUTES`, single use, dead after `SignInCode.MAX_WRONG_TRIES`
wrong tries; a new code ends the one before. Sending one is
installments.signin.services.sign_in_code_send (this layer cannot send
messages); checking one is `sign_in_code_check`, here.

The code is stored as an HMAC under the project's secret key, never as typed:
six digits are a million values, so a plain hash would give them away to
anyone who reads the table; with the key, the table alone does not.
"""

import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.crypto import constant_time_compare, salted_hmac

from .models import Customer, SignInCode

SIGN_IN_CODE_MINUTES = 10
CODE_DIGITS = 6

Purpose = SignInCode.Purpose


def _digest(customer: Customer, purpose: str, code: str) -> str:
    return salted_hmac(
        "payments.customers.codes",
        f"{customer.pk}:{purpose}:{code}",
        algorithm="sha256",
    ).hexdigest()


def sign_in_code_issue(
    *, customer: Customer, purpose: str = Purpose.SIGN_IN
) -> tuple[SignInCode, str]:
    """A new code for `customer` and `purpose` (the row and the digits, which
    only the message to the customer ever holds); the live one before it, if
    any, stops working. The customer's row lock orders two issues at once."""
    code = f"{secrets.randbelow(10**CODE_DIGITS):0{CODE_DIGITS}d}"
    now = timezone.now()
    with transaction.atomic():
        Customer.objects.select_for_update().filter(pk=customer.pk).first()
        SignInCode.objects.filter(
            customer=customer, purpose=purpose, ended_at__isnull=True
        ).update(ended_at=now)
        row = SignInCode.objects.create(
            customer=customer,
            purpose=purpose,
            code_hash=_digest(customer, purpose, code),
            created_at=now,
            expires_at=now + timedelta(minutes=SIGN_IN_CODE_MINUTES),
        )
    return row, code


def sign_in_code_check(
    *, customer: Customer, code: str, purpose: str = Purpose.SIGN_IN
) -> bool:
    """True once for the right digits of `customer`'s live, unexpired code for
    `purpose` (the code is then used up); False otherwise. A wrong try counts
    against the code, and a code with `MAX_WRONG_TRIES` wrong tries is dead.
    The code's row lock makes concurrent tries count one by one."""
    code = (code or "").strip()
    with transaction.atomic():
        live = (
            SignInCode.objects.select_for_update()
            .filter(customer=customer, purpose=purpose, ended_at__isnull=True)
            .first()
        )
        now = timezone.now()
        if (
            live is None
            or live.expires_at <= now
            or live.wrong_tries >= SignInCode.MAX_WRONG_TRIES
        ):
            return False
        if not constant_time_compare(live.code_hash, _digest(customer, purpose, code)):
            live.wrong_tries += 1
            live.save(update_fields=["wrong_tries"])
            return False
        live.ended_at = now
        live.save(update_fields=["ended_at"])
        return True
