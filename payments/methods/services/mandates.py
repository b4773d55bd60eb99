"""Bank mandate flow (endpoints 14-18) over the processor's Charge API.

initiate charges the 5000 kobo verification amount to the account; the processor
answers with the next step (OTP, birthday, phone, open a URL) until `success`,
when the account's authorization is saved as a bank payment method and the 5000
kobo is refunded after commit (or, for an authorization the processor will not
charge again, the mandate continues with a direct debit: mandate_completion.py).
Paystack replies outside the spec's next_action
values are refused clearly: send_pin/send_address 422, pending 409 (retry with
verify), failed 402 with the processor's display text.

Steps 15-18 of one reference take turns: a request first claims the mandate (a
conditional UPDATE, committed), so one step at a time reaches the processor;
a request that finds the claim taken waits a moment for that step's outcome
and answers it (the saved method, or what the mandate waits for now), or 409
`mandate_step_in_progress`. Only an OTP the processor refused counts as wrong.
"""

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, timedelta
from typing import TYPE_CHECKING

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from config.api.ids import random_token

from ...customers.models import Customer
from ...gateway.errors import InvalidOtp
from ...gateway.processors import (
    ChargeStatus,
    ChargeStep,
    side_processor,
)
from ...gateway.selectors import bank_by_code
from ...gateway.services.charges import charge_record
from ..errors import (
    MandateClosed,
    MandateNotAuthorized,
    MandateStepInProgress,
    MandateStepMismatch,
    OtpAttemptsExhausted,
    PaymentFailed,
    PaymentPending,
    TermsNotAccepted,
    UnsupportedAuthorizationStep,
)
from ..models import MAX_WRONG_OTPS, BankMandate
from ..terms import MandateConsent
from .mandate_completion import (
    OPEN_URL,
    PENDING,
    PURPOSE,
    SUBMIT_BIRTHDAY,
    SUBMIT_OTP,
    SUBMIT_PHONE,
    MandateOutcome,
    mandate_complete,
    mandate_direct_debit_verify,
    mandate_saved,
)
from .methods import own_verification, verification_open, verification_processor

if TYPE_CHECKING:
    from merchants.models import Merchant

_NEXT_ACTIONS = {
    ChargeStatus.SEND_OTP: SUBMIT_OTP,
    ChargeStatus.SEND_BIRTHDAY: SUBMIT_BIRTHDAY,
    ChargeStatus.SEND_PHONE: SUBMIT_PHONE,
    ChargeStatus.OPEN_URL: OPEN_URL,
}

# How long a step waits for another step of the same reference to finish (a
# double tap, a retried request) before answering 409 mandate_step_in_progress.
STEP_WAIT_SECONDS = 5.0
STEP_POLL_SECONDS = 0.05
# A claim this old belongs to a request that died: longer than any processor
# step takes (timeouts and pending polls included), so it is taken over.
STEP_CLAIM_LIFETIME = timedelta(minutes=3)

_UNKNOWN_BANK = (
    "Unknown bank_code: GET /api/v1/payment-methods/banks lists the supported banks."
)


def mandate_initiate(
    *,
    customer: Customer,
    bank_code: str,
    account_number: str,
    is_default: bool,
    consent: MandateConsent | None,
    merchant: "Merchant | None" = None,
    livemode: bool = True,
) -> MandateOutcome:
    """Start a mandate the customer accepted the terms of (`consent`; None:
    422 `terms_not_accepted`, nothing charged), on the side of `merchant` (the
    checkout's it was started from: a test checkout's is a test mandate, at
    the sandbox), or of `livemode` without one (the customer API names the
    side; the customer's own account pages are live)."""
    if consent is None:
        raise TermsNotAccepted()
    if merchant is not None:
        livemode = merchant.livemode
    processor = side_processor(livemode)
    bank = bank_by_code(bank_code, processor=processor)
    if bank is None:
        raise ValidationError({"bank_code": [_UNKNOWN_BANK]})
    mandate, charge = verification_open(
        BankMandate,
        "mandate",
        customer=customer,
        processor=processor,
        livemode=livemode,
        bank_code=bank.code,
        bank_name=bank.name,
        account_number=account_number,
        is_default=is_default,
        terms_accepted_at=consent.accepted_at,
        terms_ip=consent.ip,
        terms_user_agent=consent.user_agent,
        terms_version=consent.version,
    )
    step = processor.charge_bank(
        **charge,
        bank_code=bank.code,
        account_number=account_number,
    )
    return _apply(mandate, step)


@dataclass(frozen=True)
class MandateDetails:
    """What steps 15-18 repeat from initiate; when sent they must match it."""

    bank_code: str | None = None
    account_number: str | None = None
    is_default: bool | None = None


def mandate_submit_otp(
    *, customer: Customer, reference: str, otp: str, details: MandateDetails
) -> MandateOutcome:
    return _step(customer, reference, details, SUBMIT_OTP, otp)


def mandate_submit_birthday(
    *, customer: Customer, reference: str, birthday: date, details: MandateDetails
) -> MandateOutcome:
    return _step(customer, reference, details, SUBMIT_BIRTHDAY, birthday)


def mandate_submit_phone(
    *, customer: Customer, reference: str, phone: str, details: MandateDetails
) -> MandateOutcome:
    return _step(customer, reference, details, SUBMIT_PHONE, phone)


def mandate_verify(
    *, customer: Customer, reference: str, details: MandateDetails
) -> MandateOutcome:
    """After the open_url popup (or a pending reply): ask the processor again."""
    with _turn(customer, reference, details) as mandate:
        if isinstance(mandate, MandateOutcome):
            return mandate
        if mandate.next_action not in (OPEN_URL, PENDING):
            raise MandateStepMismatch(
                f"This mandate is waiting for "
                f"{mandate.next_action or 'its first reply'}; verify follows the "
                "open_url step."
            )
        if mandate.direct_debit:
            return mandate_direct_debit_verify(mandate)
        step = verification_processor(mandate).check_charge(reference=mandate.reference)
        if step.status == ChargeStatus.OPEN_URL:
            raise MandateNotAuthorized()
        return _apply(mandate, step)


def _open_mandate(
    customer: Customer, reference: str, details: MandateDetails
) -> BankMandate | MandateOutcome:
    """The mandate, ready for a step; or the stored outcome of a finished one."""
    mandate = own_verification(BankMandate, customer, reference)
    mismatched = {
        name: [f"{name} does not match the mandate started with this reference."]
        for name in ("bank_code", "account_number")
        if getattr(details, name) is not None
        and getattr(details, name) != getattr(mandate, name)
    }
    if mismatched:
        raise ValidationError(mismatched)
    if mandate.status == BankMandate.Status.SUCCEEDED:
        return mandate_saved(mandate)
    if mandate.status == BankMandate.Status.DEAD:
        raise OtpAttemptsExhausted()
    if mandate.status == BankMandate.Status.FAILED:
        raise MandateClosed(
            f"This mandate reference has ended ({mandate.failure_message}); start "
            "again with initiate-bank-mandate."
            if mandate.failure_message
            else None
        )
    if details.is_default is not None and details.is_default != mandate.is_default:
        mandate.is_default = details.is_default
        mandate.save(update_fields=["is_default", "updated_at"])
    return mandate


@contextmanager
def _turn(
    customer: Customer, reference: str, details: MandateDetails
) -> Iterator[BankMandate | MandateOutcome]:
    """The mandate, claimed for one step until the block ends; or the stored
    outcome of a mandate that finished, perhaps while this request waited."""
    deadline = time.monotonic() + STEP_WAIT_SECONDS
    claim = random_token(128)
    while True:
        mandate = _open_mandate(customer, reference, details)
        if isinstance(mandate, MandateOutcome):
            yield mandate
            return
        now = timezone.now()
        claimed = (
            BankMandate.objects.filter(
                pk=mandate.pk, status=BankMandate.Status.IN_PROGRESS
            )
            .filter(Q(step_claim="") | Q(step_claimed_at__lt=now - STEP_CLAIM_LIFETIME))
            .update(step_claim=claim, step_claimed_at=now, updated_at=now)
        )
        if claimed:
            break
        if time.monotonic() >= deadline:
            raise MandateStepInProgress()
        time.sleep(STEP_POLL_SECONDS)
    try:
        # What the step before this one left: the next_action, the OTP count.
        mandate.refresh_from_db()
        yield mandate
    finally:
        BankMandate.objects.filter(pk=mandate.pk, step_claim=claim).update(
            step_claim="", step_claimed_at=None
        )


def _step(customer, reference, details, action, value) -> MandateOutcome:
    with _turn(customer, reference, details) as mandate:
        if isinstance(mandate, MandateOutcome):
            return mandate
        if mandate.next_action != action:
            raise MandateStepMismatch(
                f"This mandate is waiting for "
                f"{mandate.next_action or 'its first reply'}, not {action}."
            )
        processor = verification_processor(mandate)
        if action == SUBMIT_OTP:
            step = _submit_otp(processor, mandate, value)
        elif action == SUBMIT_BIRTHDAY:
            step = processor.submit_birthday(
                reference=mandate.reference, birthday=value
            )
        else:
            step = processor.submit_phone(reference=mandate.reference, phone=value)
        return _apply(mandate, step)


def _submit_otp(processor, mandate: BankMandate, otp: str) -> ChargeStep:
    """Within the mandate's turn, so at most 5 wrong OTPs ever reach the
    processor; only an OTP the processor refused is counted."""
    if mandate.otp_failures >= MAX_WRONG_OTPS:
        raise OtpAttemptsExhausted()
    try:
        return processor.submit_otp(reference=mandate.reference, otp=otp)
    except InvalidOtp:
        pass
    mandates = BankMandate.objects.filter(pk=mandate.pk)
    mandates.filter(otp_failures__lt=MAX_WRONG_OTPS).update(
        otp_failures=F("otp_failures") + 1, updated_at=timezone.now()
    )
    left = MAX_WRONG_OTPS - mandates.values_list("otp_failures", flat=True).get()
    if left > 0:
        raise InvalidOtp(
            f"The OTP is incorrect; {left} more attempt{'s' if left > 1 else ''}."
        )
    BankMandate.transition_where(
        mandates, BankMandate.Status.DEAD, same={"failure_message": "5 wrong OTPs"}
    )
    raise InvalidOtp(
        "The OTP is incorrect. That was the 5th wrong OTP: this reference is "
        "now dead; start again with initiate-bank-mandate."
    )


def _apply(mandate: BankMandate, step: ChargeStep) -> MandateOutcome:
    """Turn the processor's reply into the next_action, or finish the mandate."""
    action = _NEXT_ACTIONS.get(step.status)
    if action is not None:
        mandate.next_action = action
        mandate.display_text = step.display_text[:255]
        mandate.url = step.url if action == OPEN_URL else ""
        mandate.save(update_fields=["next_action", "display_text", "url", "updated_at"])
        return MandateOutcome(
            mandate=mandate,
            next_action=action,
            display_text=mandate.display_text,
            url=mandate.url,
        )
    if step.status == ChargeStatus.SUCCESS:
        return mandate_complete(mandate, step)
    if step.status == ChargeStatus.PENDING:
        mandate.next_action = PENDING
        mandate.display_text = step.display_text[:255]
        mandate.save(update_fields=["next_action", "display_text", "updated_at"])
        raise PaymentPending()
    if step.status == ChargeStatus.FAILED:
        message = step.display_text or step.gateway_response or PaymentFailed.message
        _close(mandate, message, step)
        raise PaymentFailed(message)
    _close(mandate, f"unsupported processor step {step.status}", None)
    raise UnsupportedAuthorizationStep(
        f"The bank asked for '{step.status}', which this service does not support "
        "for mandates; use another account or a card."
    )


def _close(mandate: BankMandate, message: str, step: ChargeStep | None) -> None:
    with transaction.atomic(durable=True):
        mandate = BankMandate.objects.select_for_update().get(pk=mandate.pk)
        if mandate.status != BankMandate.Status.IN_PROGRESS:
            return
        if step is not None:
            charge_record(
                reference=mandate.reference,
                processor=mandate.processor,
                livemode=mandate.livemode,
                customer=mandate.customer,
                purpose=PURPOSE,
                amount=mandate.amount,
                currency=mandate.currency,
                succeeded=False,
                gateway_response=step.gateway_response or step.display_text,
                processor_id=step.processor_id,
            )
        mandate.next_action = ""
        mandate.failure_message = message[:255]
        mandate.transition_to(
            BankMandate.Status.FAILED, update_fields=["next_action", "failure_message"]
        )
