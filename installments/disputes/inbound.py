"""The processor's dispute events (`charge.dispute.create`, `.remind`,
`.resolve`), through endpoint 24's pipeline: verified and stored by the
gateway, re-read here with `GET /dispute/:id` before anything moves, and
applied once per fact (a ProcessorEvent row in the transaction of the
change). Registered with the gateway in installments/apps.py."""

from django.db import transaction
from django.utils import timezone

from config.api.errors import InvalidRequest
from payments.gateway.services.processor_events import (
    event_already_handled,
    event_processor,
    event_record_once,
)

from .services import UNKNOWN, dispute_sync

CREATE = "charge.dispute.create"
REMIND = "charge.dispute.remind"
RESOLVE = "charge.dispute.resolve"
DISPUTE_EVENTS = (CREATE, REMIND, RESOLVE)


def _dispute_id(data: dict) -> str:
    value = data.get("id")
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InvalidRequest("data.id (the dispute's id) is required for this event.")
    text = str(value).strip()
    if not text or len(text) > 64 or not text.isprintable():
        raise InvalidRequest("data.id must be a dispute id of at most 64 characters.")
    return text


def dispute_event_handle(*, event: str, data: dict, source: str, inbound) -> str:
    """One dispute event: "handled", "duplicate" or "ignored: <why>". A
    reminder is one fact a day (the processor retries a reminder it sent);
    opening and resolution are one fact each."""
    dispute_id = _dispute_id(data)
    key = dispute_id
    if event == REMIND:
        key = f"{dispute_id}:{timezone.localdate():%Y-%m-%d}"
    if event_already_handled(event, key):
        return "duplicate"
    # Fetched from where the event came: a webhook's from the live processor,
    # the sandbox's passes (test disputes on any deployment) from the sandbox.
    found = event_processor(source).fetch_dispute(dispute_id=dispute_id)
    if found is None:
        return "ignored: the processor knows no dispute with this id"
    with transaction.atomic(durable=True):
        row = event_record_once(
            event=event, reference=key, source=source, inbound=inbound
        )
        if row is None:
            return "duplicate"
        did = dispute_sync(found, remind=event == REMIND)
        row.note = f"dispute {did}"
        row.save(update_fields=["note"])
    if did == UNKNOWN:
        return "ignored: no collection of ours has this transaction"
    return "handled"
