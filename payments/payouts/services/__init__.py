"""Use-cases of payouts (one module per flow), importable from here."""

from .payout_accounts import payout_account_set
from .payout_runs import payouts_run
from .payouts import (
    MINIMUM_PAYOUT,
    payout_check,
    payout_create,
    payout_outcome_apply,
    payout_transfer_request,
)
from .transfer_events import TRANSFER_EVENTS, transfer_event_handle

__all__ = [
    "MINIMUM_PAYOUT",
    "TRANSFER_EVENTS",
    "payout_account_set",
    "payout_check",
    "payout_create",
    "payout_outcome_apply",
    "payout_transfer_request",
    "payouts_run",
    "transfer_event_handle",
]
