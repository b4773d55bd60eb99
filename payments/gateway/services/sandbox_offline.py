"""The sandbox's bank transfers and USSD codes (DESIGN section 17), for the
layers above: read a pending charge, complete it (the customer's money lands)
or expire it. A completion feeds `charge.success` through
`processor_event_handle`, as the sandbox settles its transfers and refunds, so
the charge is settled by the same re-verified path, and the same registered
handlers, as Paystack's webhook.

Nothing else pays a sandbox transfer or USSD code, so a test decides when the
money lands. Completing and expiring always reach the sandbox (only its
endpoints call them: on a deployment with a real processor, for test data);
reading a charge finds nothing on another processor.
"""

import logging

from ..errors import SandboxChargeNotPending
from ..processors import get_processor, sandbox_processor
from ..processors.base import OfflineCharge
from .processor_events import (
    CHARGE_SUCCESS,
    Source,
    event_already_handled,
    processor_event_handle,
)

logger = logging.getLogger("payments.events")


def _sandbox():
    """The sandbox, for the calls that complete or expire its charges by hand:
    only the sandbox endpoints make them, on a sandbox deployment or, on one
    with a real processor, for test data, which is always the sandbox's
    (DESIGN section 21)."""
    return sandbox_processor()


def sandbox_offline_charge(*, reference: str) -> OfflineCharge | None:
    """The sandbox's charge under `reference` as it stands (`status` pending,
    success or abandoned), or None when it has none."""
    processor = get_processor()
    if processor.name != "sandbox":
        return None
    return processor.offline_charge(reference=reference)


def sandbox_offline_complete(
    *, reference: str, amount: int | None = None
) -> OfflineCharge:
    """The customer pays the pending charge `reference` (exactly `amount`
    kobo when given): it is paid at the sandbox, then its `charge.success` is
    handled (by the registered charge confirmation handlers, once); returns
    the charge, now `success`.

    Refused, changing nothing: SandboxChargeNotFound (404) for no such charge,
    SandboxChargeExpired (409) once it expired or was expired,
    SandboxChargeNotPending (409) when it was paid already, SandboxAmountMismatch
    (422) for another amount. A charge paid whose event could not be handled
    (a handler raised, which raises here too) is announced again by the next
    call, as Paystack sends a webhook again until it is taken."""
    processor = _sandbox()
    try:
        charge = processor.offline_complete(reference=reference, amount=amount)
    except SandboxChargeNotPending:
        charge = processor.offline_charge(reference=reference)
        if event_already_handled(CHARGE_SUCCESS, reference) or (
            amount is not None and amount != charge.amount
        ):
            raise
        logger.warning("Sandbox charge %s paid earlier: announced again", reference)
    outcome = processor_event_handle(payload=_paid_event(charge), source=Source.SANDBOX)
    logger.info("Sandbox charge %s paid: %s", reference, outcome)
    return charge


def sandbox_offline_expire(*, reference: str) -> OfflineCharge:
    """End the pending charge `reference`: verifying it then says abandoned,
    and a later completion is refused. One already ended stays so; a paid one
    is refused (SandboxChargeNotPending, 409)."""
    return _sandbox().offline_expire(reference=reference)


def _paid_event(charge: OfflineCharge) -> dict:
    """`charge.success` as Paystack sends it (reference/paystack.md); only the
    reference counts: the handler verifies it before anything moves."""
    return {
        "event": CHARGE_SUCCESS,
        "data": {
            "id": charge.processor_id,
            "status": "success",
            "reference": charge.reference,
            "amount": charge.amount,
            "currency": charge.currency,
            "channel": charge.channel,
            "gateway_response": charge.gateway_response,
        },
    }
