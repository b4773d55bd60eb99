"""How a bank mandate's successful bank step ends (endpoints 14-18).

The Charge API's `success` carries the account's authorization. One the
processor will charge again is saved as a bank payment method, and the 5000
kobo verification charge is refunded after commit. One it will not charge
again (Paystack's `reusable: false`, frequent for bank charges) is never saved:
the first installment would fail. The charge is still recorded and refunded,
and the mandate continues with a direct-debit authorization request
(`POST /customer/authorization/initialize`, channel `direct_debit`), offered to
the customer as the spec's `open_url` step; verify (18) then asks whether that
authorization is active and saves it, or answers 409 and saves nothing.
"""

from dataclasses import dataclass

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from ...gateway.errors import ProcessorError, ProcessorRefused, ProcessorTimeout
from ...gateway.models import ProcessorCharge
from ...gateway.processors import Authorization, ChargeStep
from ...gateway.services.charges import charge_record, verification_refund_schedule
from ..errors import MandateNotAuthorized
from ..models import BankMandate, PaymentMethod
from .methods import (
    NewMethod,
    bank_label,
    lock_customer,
    payment_method_store,
    verification_processor,
)

PURPOSE = ProcessorCharge.Purpose.BANK_VERIFICATION
SUBMIT_OTP = "submit_otp"
SUBMIT_BIRTHDAY = "submit_birthday"
SUBMIT_PHONE = "submit_phone"
OPEN_URL = "open_url"
PENDING = "pending"
SUCCESS = "success"

DIRECT_DEBIT_TEXT = (
    "Your bank needs a direct debit mandate for the installments: open the link, "
    "authorize the direct debit there, then come back to finish."
)
DIRECT_DEBIT_NOT_ACTIVE = (
    "The bank has not activated the direct debit yet, so nothing was saved. If "
    "the customer has not authorized it at the url yet, open the url and do so; "
    "some banks then take a few hours to activate it. Call verify again later "
    "with the same reference."
)


@dataclass(frozen=True)
class MandateOutcome:
    mandate: BankMandate
    next_action: str
    display_text: str = ""
    url: str = ""
    payment_method: PaymentMethod | None = None


def mandate_saved(mandate: BankMandate) -> MandateOutcome:
    return MandateOutcome(
        mandate=mandate,
        next_action=SUCCESS,
        display_text=mandate.display_text,
        payment_method=mandate.payment_method,
    )


def mandate_complete(mandate: BankMandate, step: ChargeStep) -> MandateOutcome:
    """The bank step succeeded: save its authorization, or go on with a direct
    debit when the processor will not charge that authorization again."""
    authorization = step.authorization
    if authorization is None:
        raise ProcessorError(
            "The payment processor reported the mandate authorized but sent no "
            "authorization; try verify again shortly."
        )
    if not authorization.reusable:
        return _direct_debit_begin(mandate, step)
    return _save(mandate, authorization, step=step, display_text=step.display_text)


def mandate_direct_debit_verify(mandate: BankMandate) -> MandateOutcome:
    """Endpoint 18 for a mandate continued with a direct debit."""
    if not mandate.direct_debit_reference:
        return _direct_debit_request(mandate)  # the request failed before
    found = verification_processor(mandate).verify_direct_debit(
        reference=mandate.direct_debit_reference
    )
    if found is None or not found.chargeable:
        raise MandateNotAuthorized(DIRECT_DEBIT_NOT_ACTIVE)
    authorization = Authorization(
        authorization_code=found.authorization_code,
        channel="bank",
        bank=found.bank,
        last4=mandate.account_last4,
    )
    return _save(mandate, authorization, step=None, display_text="Mandate authorized.")


def _verification_charge_taken(
    mandate: BankMandate, step: ChargeStep, *, customer, payment_method=None
) -> None:
    """The bank step took the verification charge: recorded (with its ledger
    posting) and refunded after commit."""
    charge = charge_record(
        reference=mandate.reference,
        processor=mandate.processor,
        livemode=mandate.livemode,
        customer=customer,
        purpose=PURPOSE,
        amount=step.amount or mandate.amount,
        currency=mandate.currency,
        succeeded=True,
        gateway_response=step.gateway_response,
        processor_id=step.processor_id,
        paid_at=timezone.now(),
        payment_method=payment_method,
    )
    verification_refund_schedule(charge)


def _direct_debit_begin(mandate: BankMandate, step: ChargeStep) -> MandateOutcome:
    with transaction.atomic(durable=True):
        mandate = BankMandate.objects.select_for_update().get(pk=mandate.pk)
        if mandate.status == BankMandate.Status.SUCCEEDED:
            return mandate_saved(mandate)
        # The bank step took the 5000 kobo: recorded and given back as ever.
        _verification_charge_taken(mandate, step, customer=mandate.customer)
        mandate.direct_debit = True
        mandate.next_action = OPEN_URL
        mandate.display_text = DIRECT_DEBIT_TEXT
        mandate.url = ""
        mandate.save(
            update_fields=[
                "direct_debit",
                "next_action",
                "display_text",
                "url",
                "updated_at",
            ]
        )
    return _direct_debit_request(mandate)


def _direct_debit_request(mandate: BankMandate) -> MandateOutcome:
    """Ask the processor for a direct-debit authorization request (no money
    moves, so a failed or lost one is simply asked for again by verify)."""
    try:
        request = verification_processor(mandate).initialize_direct_debit(
            email=mandate.customer.email,
            callback_url=settings.CONSUMER_URL + reverse("mandate-authorized"),
            bank_code=mandate.bank_code,
            account_number=mandate.account_number,
        )
    except (ProcessorError, ProcessorTimeout, ProcessorRefused) as error:
        raise type(error)(
            f"{error.message} The bank account was verified, but its direct debit "
            "could not be started: call bank-mandate/verify with the same "
            "reference to try again."
        ) from error
    mandate.direct_debit_reference = request.reference[:100]
    mandate.url = request.redirect_url
    mandate.save(update_fields=["direct_debit_reference", "url", "updated_at"])
    return MandateOutcome(
        mandate=mandate,
        next_action=OPEN_URL,
        display_text=mandate.display_text,
        url=mandate.url,
    )


def _save(
    mandate: BankMandate,
    authorization: Authorization,
    *,
    step: ChargeStep | None,
    display_text: str,
) -> MandateOutcome:
    """Save the account with an authorization the processor charges again; a
    bank step's own charge is recorded with it (a direct debit's was recorded
    when the bank step ended)."""
    with transaction.atomic(durable=True):
        customer = lock_customer(mandate.customer)
        mandate = BankMandate.objects.select_for_update().get(pk=mandate.pk)
        if mandate.status == BankMandate.Status.SUCCEEDED:
            return mandate_saved(mandate)
        method = payment_method_store(
            customer=customer,
            new=NewMethod(
                type=PaymentMethod.Type.BANK,
                processor=mandate.processor,
                livemode=mandate.livemode,
                authorization=authorization,
                fingerprint_source=f"bank:{mandate.bank_code}:{mandate.account_number}",
                label=bank_label(
                    bank_name=mandate.bank_name, account_number=mandate.account_number
                ),
                last4=mandate.account_last4,
                bank_code=mandate.bank_code,
                bank_name=mandate.bank_name,
            ),
            make_default=mandate.is_default,
        )
        method.mandate_terms_accepted_at = mandate.terms_accepted_at
        method.mandate_terms_ip = mandate.terms_ip
        method.mandate_terms_user_agent = mandate.terms_user_agent
        method.mandate_terms_version = mandate.terms_version
        method.save(
            update_fields=[
                "mandate_terms_accepted_at",
                "mandate_terms_ip",
                "mandate_terms_user_agent",
                "mandate_terms_version",
                "updated_at",
            ]
        )
        if step is not None:
            _verification_charge_taken(
                mandate, step, customer=customer, payment_method=method
            )
        mandate.next_action = SUCCESS
        mandate.display_text = display_text[:255]
        mandate.url = ""
        mandate.payment_method = method
        mandate.transition_to(
            BankMandate.Status.SUCCEEDED,
            update_fields=["next_action", "display_text", "url", "payment_method"],
        )
    return mandate_saved(mandate)
