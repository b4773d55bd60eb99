"""The terms of a bank mandate (DESIGN section 18): shown, with an unticked
box, when a customer authorizes a bank account to be debited; accepted with
the mandate (PaymentMethod.mandate_terms_*) and printed in the agreement of
every plan collected from it. A change of wording is a new version."""

import ipaddress
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

MANDATE_TERMS_VERSION = "2026-11-1"

MANDATE_TERMS = (
    "By authorizing this bank account you allow it to be debited for your "
    "installment plans: the amounts and dates are those of each plan's key "
    "facts. It is debited only on a due date and on the retry days the key "
    "facts name, or when you choose to pay early. You will be told in advance, "
    "by e-mail and SMS, of any change to an amount or a date. You can cancel "
    "the mandate at any time by removing the account from your account's "
    "payment methods or by asking your bank; installments still owed are then "
    "paid by another method."
)

MANDATE_TERMS_LABEL = "I have read the mandate terms and authorize these debits"


@dataclass(frozen=True)
class MandateConsent:
    """The customer's acceptance of the mandate terms, as the request gave it."""

    accepted_at: datetime
    ip: str | None
    user_agent: str
    version: str = MANDATE_TERMS_VERSION

    @classmethod
    def of(cls, request) -> "MandateConsent":
        return cls(
            accepted_at=timezone.now(),
            ip=_address(request.META.get("REMOTE_ADDR", "")),
            user_agent=request.META.get("HTTP_USER_AGENT", "")[:255],
        )


def _address(text: str) -> str | None:
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        return None
