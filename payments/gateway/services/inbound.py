"""The processor's callbacks (endpoints 24 and 25): `inbound_receive` verifies,
stores, processes and records; the views only hand it the raw request.

Verify `x-paystack-signature` first (hex HMAC-SHA512 of the raw body keyed with
PAYSTACK_SECRET_KEY, compared in constant time); then store the signed request as
received, then process it, and write the outcome back onto the stored row.

Anyone can send an unsigned request, so a refused one is never stored whole: it
leaves a small record (body size and SHA-256, a few headers cut short, no body),
and only REFUSED_RECORDS_PER_MINUTE of those per endpoint and minute; the others
are answered the same 401 and only counted.
"""

import hashlib
import hmac
import io
import logging
from collections.abc import Mapping

from django.conf import settings
from django.utils import timezone
from django_q.tasks import async_task
from rest_framework.exceptions import ParseError

from config.api import ratelimit
from config.api.errors import InvalidRequest
from config.api.parsers import SafeJSONParser

from ..errors import InvalidSignature
from ..hooks import inbound_handler
from ..models import InboundRequest

logger = logging.getLogger("payments.inbound")

SIGNATURE_HEADER = "X-Paystack-Signature"
PROCESS_EVENT_TASK = "payments.gateway.tasks.process_paystack_event"
REFUSED = "missing or invalid signature"
REFUSED_RECORDS_PER_MINUTE = 5
# What a refused record keeps of the headers: enough to tell who sent it (the
# processor with a rotated key, or someone else), each value cut short.
REFUSED_HEADERS = frozenset(
    {
        "content-length",
        "content-type",
        "user-agent",
        "x-forwarded-for",
        "x-real-ip",
        "x-request-id",
        SIGNATURE_HEADER.lower(),
    }
)
REFUSED_HEADER_CHARS = 200
_NOT_STORED_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization"})


def _digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


def inbound_store(*, endpoint: str, body: bytes, headers: Mapping) -> InboundRequest:
    """Store a signed request exactly as received (before it is processed)."""
    kept = {
        str(name): str(value)
        for name, value in headers.items()
        if str(name).lower() not in _NOT_STORED_HEADERS
    }
    return InboundRequest.objects.create(
        endpoint=endpoint,
        body=body,
        body_size=len(body),
        body_sha256=_digest(body),
        headers=kept,
        signature_valid=True,
    )


def inbound_refused_record(
    *, endpoint: str, body: bytes, headers: Mapping
) -> InboundRequest | None:
    """A small, final record of a request refused for its signature, or None
    when this endpoint's records of the current minute are used up."""
    window = ratelimit.hit(
        f"inbound-refused:{endpoint}", limit=REFUSED_RECORDS_PER_MINUTE
    )
    if window.exceeded:
        if window.count == window.limit + 1:
            logger.warning(
                "More than %s requests with a %s on inbound endpoint %s this "
                "minute; the others are answered 401 and not recorded.",
                window.limit,
                REFUSED,
                endpoint,
            )
        return None
    kept = {
        str(name)[:64]: _printable(str(value))[:REFUSED_HEADER_CHARS]
        for name, value in headers.items()
        if str(name).lower() in REFUSED_HEADERS
    }
    return InboundRequest.objects.create(
        endpoint=endpoint,
        body=b"",
        body_size=len(body),
        body_sha256=_digest(body),
        headers=kept,
        signature_valid=False,
        error=REFUSED,
        outcome=f"refused: {REFUSED}",
        processed_at=timezone.now(),
    )


def inbound_verified_store(
    *, endpoint: str, body: bytes, headers: Mapping
) -> InboundRequest:
    """Verify the signature, then store the request; a request refused for its
    signature gets at most a small record (`inbound_refused_record`) and
    raises InvalidSignature (401)."""
    if not signature_matches(body, headers.get(SIGNATURE_HEADER)):
        inbound_refused_record(endpoint=endpoint, body=body, headers=headers)
        raise InvalidSignature()
    return inbound_store(endpoint=endpoint, body=body, headers=headers)


def inbound_payload(body: bytes) -> dict:
    """The signed body as a JSON object, read by the API's own parser, so a body
    nested too deeply is refused by the same rule as on every other endpoint."""
    try:
        payload = SafeJSONParser().parse(io.BytesIO(body))
    except ParseError as error:
        raise InvalidRequest(str(error.detail)) from None
    if not isinstance(payload, dict):
        raise InvalidRequest("The body must be a JSON object.")
    return payload


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
    event: str = "",
    error: str = "",
    refused: bool = False,
) -> None:
    """Write the handling's result on the stored (signed) row. `refused`: a
    request that can never be handled (not an event): final, with its error as
    the outcome, so the retry pass of endpoint 24 leaves it alone."""
    # The event name comes from the sender's JSON, where "\u0000" is valid; a
    # PostgreSQL text column is not, so NULs are dropped from what is stored.
    event, error = _printable(event), _printable(error)
    inbound.event = event[:100]
    inbound.error = error
    fields = ["event", "error", "processed_at"]
    if refused:
        inbound.outcome = f"refused: {error}"[:255]
        fields.append("outcome")
    inbound.processed_at = timezone.now() if refused or not error else None
    inbound.save(update_fields=fields)


def inbound_receive(*, endpoint: str, body: bytes, headers: Mapping) -> str:
    """Verify the signature (InvalidSignature, 401), store the signed request,
    read it (InvalidRequest, 400), act on it, and record the outcome or the
    error on the stored row; returns the outcome the endpoint answers.

    Endpoint 24 only accepts the event here: a task handles it after the reply
    (`paystack_inbound_process`), verifying the reference with the processor
    before any money moves. Endpoint 25 is handled at once by the handler
    registered for it (revocations: payments.methods, gateway/hooks.py)."""
    paystack = endpoint == InboundRequest.Endpoint.PAYSTACK
    handle = _event_accept if paystack else inbound_handler(endpoint)
    inbound = inbound_verified_store(endpoint=endpoint, body=body, headers=headers)
    event = ""
    try:
        payload = inbound_payload(body)
        event = payload.get("event")
        event = event if isinstance(event, str) else ""
        outcome = handle(inbound=inbound, payload=payload)
    except Exception as error:
        inbound_finish(
            inbound,
            event=event,
            error=f"{type(error).__name__}: {error}",
            refused=isinstance(error, InvalidRequest),
        )
        raise
    inbound_finish(inbound, event=event)
    if paystack:
        _process_later(inbound)
    return outcome


def _process_later(inbound: InboundRequest) -> None:
    # After the stored row is final: a task that runs at once (tests, sync mode)
    # then records its outcome on it last.
    try:
        async_task(
            PROCESS_EVENT_TASK, inbound.pk, task_name=f"paystack-event-{inbound.pk}"
        )
    except Exception:
        # The broker is down (Redis): the event is stored, and the retry
        # schedule handles events without an outcome.
        logger.exception("Paystack event %s not queued", inbound.pk)


def _event_accept(*, inbound: InboundRequest, payload: dict) -> str:
    # A body that is not an event is refused now (400), not accepted and then
    # failed by the task and its retries for days.
    if not isinstance(payload.get("event"), str) or not isinstance(
        payload.get("data"), dict
    ):
        raise InvalidRequest(
            "The body must be a JSON object with 'event' (a string) and 'data' "
            "(an object)."
        )
    return "accepted"
