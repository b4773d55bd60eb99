"""The shared inbound verifier for processor callbacks (endpoints 24 and 25).

Store the raw request first, then verify `x-paystack-signature` (hex HMAC-SHA512
of the raw body keyed with PAYSTACK_SECRET_KEY, compared in constant time), then
process, and write the outcome back onto the stored row.
"""

import hashlib
import hmac
from collections.abc import Mapping

from django.conf import settings
from django.utils import timezone

from .models import InboundRequest

SIGNATURE_HEADER = "X-Paystack-Signature"
_NOT_STORED_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})


def inbound_store(*, endpoint: str, body: bytes, headers: Mapping) -> InboundRequest:
    kept = {
        str(name): str(value)
        for name, value in headers.items()
        if str(name).lower() not in _NOT_STORED_HEADERS
    }
    return InboundRequest.objects.create(endpoint=endpoint, body=body, headers=kept)


def signature_for(body: bytes) -> str:
    return hmac.new(
        settings.PAYSTACK_SECRET_KEY.encode(), body, hashlib.sha512
    ).hexdigest()


def signature_matches(body: bytes, signature: str | None) -> bool:
    if not signature:
        return False
    return hmac.compare_digest(
        signature_for(body).encode(), signature.strip().lower().encode()
    )


def _printable(text: str) -> str:
    return text.replace("\x00", "")


def inbound_finish(
    inbound: InboundRequest,
    *,
    signature_valid: bool,
    event: str = "",
    error: str = "",
    refused: bool = False,
) -> None:
    """Write the verification's result on the stored row. `refused`: a signed
    request that can never be handled (not an event): final, with its error as
    the outcome, so the retry pass of endpoint 24 leaves it alone."""
    # The event name comes from the sender's JSON, where "\u0000" is valid; a
    # PostgreSQL text column is not, so NULs are dropped from what is stored.
    event, error = _printable(event), _printable(error)
    inbound.signature_valid = signature_valid
    inbound.event = event[:100]
    inbound.error = error
    fields = ["signature_valid", "event", "error", "processed_at"]
    if refused:
        inbound.outcome = f"refused: {error}"[:255]
        fields.append("outcome")
    inbound.processed_at = timezone.now() if refused or not error else None
    inbound.save(update_fields=fields)
