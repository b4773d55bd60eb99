"""Use-cases of the payments app (one module per flow), importable from here."""

from .cards import card_setup_initialize, card_setup_verify
from .charges import (
    VERIFICATION_AMOUNT,
    charge_record,
    charge_record_result,
    refund_refresh,
    refund_status_update,
    verification_refund,
    verification_refunds_retry,
)
from .customers import customer_login, customer_register
from .inbound_requests import inbound_requests_purge
from .mandates import (
    MandateDetails,
    MandateOutcome,
    mandate_initiate,
    mandate_submit_birthday,
    mandate_submit_otp,
    mandate_submit_phone,
    mandate_verify,
)
from .methods import payment_method_delete, payment_method_set_default
from .payout_accounts import payout_account_set
from .payout_runs import payouts_run
from .payouts import (
    MINIMUM_PAYOUT,
    payout_check,
    payout_create,
    payout_outcome_apply,
    payout_transfer_request,
)
from .processor_events import (
    paystack_events_retry,
    paystack_inbound_process,
    processor_event_handle,
    sandbox_transfer_settle,
)
from .revocations import (
    revocation_event_handle,
    revocation_from_charge_failure,
    revocation_handle,
    revoked_mandates_poll,
)

__all__ = [
    "MINIMUM_PAYOUT",
    "VERIFICATION_AMOUNT",
    "MandateDetails",
    "MandateOutcome",
    "card_setup_initialize",
    "card_setup_verify",
    "charge_record",
    "charge_record_result",
    "customer_login",
    "customer_register",
    "inbound_requests_purge",
    "mandate_initiate",
    "mandate_submit_birthday",
    "mandate_submit_otp",
    "mandate_submit_phone",
    "mandate_verify",
    "payment_method_delete",
    "payment_method_set_default",
    "paystack_events_retry",
    "paystack_inbound_process",
    "payout_account_set",
    "payout_check",
    "payout_create",
    "payout_outcome_apply",
    "payout_transfer_request",
    "payouts_run",
    "processor_event_handle",
    "refund_refresh",
    "refund_status_update",
    "revocation_event_handle",
    "revocation_from_charge_failure",
    "revocation_handle",
    "revoked_mandates_poll",
    "sandbox_transfer_settle",
    "verification_refund",
    "verification_refunds_retry",
]
