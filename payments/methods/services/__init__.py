"""Use-cases of payment methods (one module per flow), importable from here."""

from .cards import card_setup_initialize, card_setup_verify
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
from .saved_charges import (
    ChargeOutcome,
    charge_find,
    charge_verify,
    saved_method_charge,
)

__all__ = [
    "ChargeOutcome",
    "MandateDetails",
    "MandateOutcome",
    "card_setup_initialize",
    "card_setup_verify",
    "charge_find",
    "charge_verify",
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
    "saved_method_charge",
]
