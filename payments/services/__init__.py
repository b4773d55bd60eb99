"""Use-cases of the payments app (one module per flow), importable from here."""

from .cards import card_setup_initialize, card_setup_verify
from .charges import (
    VERIFICATION_AMOUNT,
    charge_record,
    charge_record_result,
    verification_refund,
    verification_refunds_retry,
)
from .customers import customer_login, customer_register
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
from .revocations import (
    revocation_event_handle,
    revocation_from_charge_failure,
    revocation_handle,
    revoked_mandates_poll,
)

__all__ = [
    "VERIFICATION_AMOUNT",
    "MandateDetails",
    "MandateOutcome",
    "card_setup_initialize",
    "card_setup_verify",
    "charge_record",
    "charge_record_result",
    "customer_login",
    "customer_register",
    "mandate_initiate",
    "mandate_submit_birthday",
    "mandate_submit_otp",
    "mandate_submit_phone",
    "mandate_verify",
    "payment_method_delete",
    "payment_method_set_default",
    "revocation_event_handle",
    "revocation_from_charge_failure",
    "revocation_handle",
    "revoked_mandates_poll",
    "verification_refund",
    "verification_refunds_retry",
]
