"""The customer's consent to the key facts as a request gives it (DESIGN
section 18): the API's `terms_accepted: true`, the hosted page's ticked box.
The client address is the one the sign-in throttle counts by."""

from config.api.login_guard import client_ip
from installments.deposits.consent import Consent

# The hosted page's answer to a Pay without the box ticked.
TERMS_UNTICKED = (
    "Tick the box to confirm that you have read the key facts and agree to this "
    "payment plan. Nothing was charged."
)


def consent_of(request, accepted: bool) -> Consent | None:
    """The consent this request carries, or None when the customer did not
    agree (the completion is then refused)."""
    if not accepted:
        return None
    return Consent.given(
        ip=client_ip(request), user_agent=request.headers.get("User-Agent")
    )
