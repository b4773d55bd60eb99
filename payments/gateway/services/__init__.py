"""Use-cases of the gateway (one module per flow), importable from here."""

from .charges import (
    VERIFICATION_AMOUNT,
    charge_record,
    charge_record_result,
    refund_refresh,
    refund_status_update,
    verification_refund,
    verification_refund_schedule,
    verification_refund_settle,
    verification_refunds_retry,
)
from .inbound import inbound_receive
from .inbound_requests import inbound_requests_purge
from .processor_events import (
    paystack_events_retry,
    paystack_inbound_process,
    processor_event_handle,
    sandbox_transfer_settle,
)
from .refund_events import REFUND_EVENTS, refund_event_handle, sandbox_refunds_settle
from .refunds import (
    RefundOutcome,
    processor_refund_check,
    processor_refund_request,
)
from .sandbox_disputes import sandbox_dispute_decide, sandbox_disputes_run
from .sandbox_offline import (
    sandbox_offline_charge,
    sandbox_offline_complete,
    sandbox_offline_expire,
)

__all__ = [
    "REFUND_EVENTS",
    "VERIFICATION_AMOUNT",
    "RefundOutcome",
    "charge_record",
    "charge_record_result",
    "inbound_receive",
    "inbound_requests_purge",
    "paystack_events_retry",
    "paystack_inbound_process",
    "processor_event_handle",
    "processor_refund_check",
    "processor_refund_request",
    "refund_event_handle",
    "refund_refresh",
    "refund_status_update",
    "sandbox_dispute_decide",
    "sandbox_disputes_run",
    "sandbox_offline_charge",
    "sandbox_offline_complete",
    "sandbox_offline_expire",
    "sandbox_refunds_settle",
    "sandbox_transfer_settle",
    "verification_refund",
    "verification_refund_schedule",
    "verification_refund_settle",
    "verification_refunds_retry",
]
