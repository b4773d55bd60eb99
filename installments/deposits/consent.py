"""The customer's consent to the key facts (DESIGN section 18), as the door
that took it saw it: from which address and which browser. A completion
carries one or is refused (`checkout.errors.TermsNotAccepted`); the deposit
attempt it opens keeps it, stamped with the time (`deposit_attempt_open`)."""

import ipaddress
from dataclasses import dataclass

from config.text import one_line

USER_AGENT_MAX_LENGTH = 255  # DepositAttempt.terms_user_agent


@dataclass(frozen=True)
class Consent:
    ip: str | None
    user_agent: str

    @classmethod
    def given(cls, *, ip: str | None, user_agent: str | None) -> "Consent":
        """What a request said, made storable: an address that is not one
        (a missing REMOTE_ADDR) is None, the user agent one line of at most
        255 characters."""
        try:
            address = str(ipaddress.ip_address(ip or ""))
        except ValueError:
            address = None
        return cls(
            ip=address,
            user_agent=one_line(user_agent or "", USER_AGENT_MAX_LENGTH),
        )
