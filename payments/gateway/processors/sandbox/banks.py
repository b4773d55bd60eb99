"""The sandbox's bank-account charges (the Charge API's next_action steps,
DESIGN section 9), a mixin of SandboxProcessor."""

from datetime import date

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse

from config.api.ids import random_token

from ...errors import InvalidOtp, ProcessorRefused
from ...models import SandboxAuthorization, SandboxTransaction
from ..base import (
    ChargeStatus,
    ChargeStep,
    DirectDebitAuthorization,
    DirectDebitRequest,
)
from .values import (
    CORRECT_OTP,
    DISPLAY_TEXT,
    MANDATE_FIRST_STEP,
    NEXT_AFTER,
    ONE_OFF_AUTHORIZATION_DIGIT,
)


def _page_url(name: str, reference: str) -> str:
    return settings.BASE_URL + reverse(name, args=[reference])


def _duplicate_reference() -> ProcessorRefused:
    return ProcessorRefused(
        "The payment processor refused the request: Duplicate Transaction Reference",
        processor_message="Duplicate Transaction Reference",
        processor_status=400,
    )


def _authorization_create(row: SandboxTransaction, **details) -> SandboxAuthorization:
    """The authorization a successful first charge of `row` leaves behind (a card
    or a bank account: `details`)."""
    return SandboxAuthorization.objects.create(
        authorization_code=f"AUTH_{random_token(64).lower()}",
        email=row.email,
        **details,
    )


def _bank_authorization(row: SandboxTransaction, **details) -> SandboxAuthorization:
    return _authorization_create(
        row,
        channel="bank",
        last4=row.account_number[-4:],
        bank_code=row.bank_code,
        account_number=row.account_number,
        **details,
    )


class SandboxBankCharges:
    def charge_bank(
        self, *, email, amount, reference, bank_code, account_number, currency="NGN"
    ):
        first = MANDATE_FIRST_STEP.get(account_number[-1:])
        fields = {
            "reference": reference,
            "kind": SandboxTransaction.Kind.BANK_CHARGE,
            "email": email,
            "amount": amount,
            "currency": currency,
            "bank_code": bank_code,
            "account_number": account_number,
        }
        if first is None:
            # Refused at once: the row is written with its outcome.
            fields |= {
                "status": SandboxTransaction.Status.FAILED,
                "step": ChargeStatus.FAILED,
                "gateway_response": "Sandbox mandate accounts end in 0, 1, 2 or 3 "
                "(or 4: a one-off bank authorization, then a direct debit); this "
                "account cannot be debited.",
            }
        else:
            fields.update(step=first)
        try:
            with transaction.atomic():
                row = SandboxTransaction.objects.create(**fields)
        except IntegrityError:
            raise _duplicate_reference() from None
        return self._step(row)

    def _advance(self, *, reference: str, expected: str) -> SandboxTransaction:
        row = SandboxTransaction.objects.select_for_update().get(
            reference=reference, kind=SandboxTransaction.Kind.BANK_CHARGE
        )
        if row.step != expected:
            raise ProcessorRefused(
                f"The payment processor refused the request: this charge is not "
                f"awaiting {expected} (it is at {row.step or 'no step'}).",
                processor_message="Charge is not awaiting this step",
                processor_status=400,
            )
        row.step = NEXT_AFTER[expected]
        if row.step != ChargeStatus.SUCCESS:
            row.save()
            return row
        row.gateway_response = "Approved"
        row.authorization = _bank_authorization(
            row,
            reusable=not row.account_number.endswith(ONE_OFF_AUTHORIZATION_DIGIT),
        )
        row.transition_to(
            SandboxTransaction.Status.SUCCESS,
            update_fields=["step", "gateway_response", "authorization"],
        )
        return row

    def _existing(self, reference: str) -> None:
        if not SandboxTransaction.objects.filter(
            reference=reference, kind=SandboxTransaction.Kind.BANK_CHARGE
        ).exists():
            raise ProcessorRefused(
                "The payment processor refused the request: Charge not found",
                processor_message="Charge not found",
                processor_status=404,
            )

    def submit_otp(self, *, reference, otp):
        self._existing(reference)
        with transaction.atomic():
            if otp != CORRECT_OTP:
                row = SandboxTransaction.objects.get(reference=reference)
                if row.step == ChargeStatus.SEND_OTP:
                    raise InvalidOtp()
            row = self._advance(reference=reference, expected=ChargeStatus.SEND_OTP)
        return self._step(row)

    def submit_birthday(self, *, reference, birthday: date):
        self._existing(reference)
        with transaction.atomic():
            row = self._advance(
                reference=reference, expected=ChargeStatus.SEND_BIRTHDAY
            )
        return self._step(row)

    def submit_phone(self, *, reference, phone):
        self._existing(reference)
        with transaction.atomic():
            row = self._advance(reference=reference, expected=ChargeStatus.SEND_PHONE)
        return self._step(row)

    def authorize_mandate(self, *, reference: str) -> SandboxTransaction:
        """The form of /sandbox/mandate/<reference> was submitted."""
        with transaction.atomic():
            row = SandboxTransaction.objects.select_for_update().get(
                reference=reference, kind=SandboxTransaction.Kind.BANK_CHARGE
            )
            if row.step == ChargeStatus.OPEN_URL:
                row = self._advance(reference=reference, expected=ChargeStatus.OPEN_URL)
        return row

    def initialize_direct_debit(
        self, *, email, callback_url, bank_code, account_number
    ):
        # Like Paystack, the processor names the request; no money moves.
        row = SandboxTransaction.objects.create(
            reference=f"dd-{random_token(96).lower()}",
            kind=SandboxTransaction.Kind.DIRECT_DEBIT,
            email=email,
            amount=0,
            callback_url=callback_url,
            bank_code=bank_code,
            account_number=account_number,
        )
        return DirectDebitRequest(
            reference=row.reference,
            redirect_url=_page_url("sandbox-direct-debit", row.reference),
            access_code=row.reference[3:],
        )

    def authorize_direct_debit(self, *, reference: str) -> SandboxTransaction:
        """The form of /sandbox/direct-debit/<reference> was submitted: the
        customer consents, and the authorization is active at once."""
        with transaction.atomic():
            row = SandboxTransaction.objects.select_for_update().get(
                reference=reference, kind=SandboxTransaction.Kind.DIRECT_DEBIT
            )
            if row.status == SandboxTransaction.Status.PENDING:
                row.gateway_response = "Authorization active"
                row.authorization = _bank_authorization(row)
                row.transition_to(
                    SandboxTransaction.Status.SUCCESS,
                    update_fields=["gateway_response", "authorization"],
                )
        return row

    def verify_direct_debit(self, *, reference):
        row = (
            SandboxTransaction.objects.select_related("authorization")
            .filter(reference=reference, kind=SandboxTransaction.Kind.DIRECT_DEBIT)
            .first()
        )
        if row is None:
            return None
        auth = row.authorization
        return DirectDebitAuthorization(
            reference=reference,
            active=auth is not None and auth.revoked_at is None,
            authorization_code=auth.authorization_code if auth else "",
            bank=row.bank_code,
        )

    def check_charge(self, *, reference):
        self._existing(reference)
        return self._step(
            SandboxTransaction.objects.select_related("authorization").get(
                reference=reference
            )
        )

    def _step(self, row: SandboxTransaction) -> ChargeStep:
        return ChargeStep(
            reference=row.reference,
            status=row.step,
            display_text=row.gateway_response
            if row.step == ChargeStatus.FAILED
            else DISPLAY_TEXT[row.step],
            url=_page_url("sandbox-mandate", row.reference)
            if row.step == ChargeStatus.OPEN_URL
            else "",
            amount=row.amount,
            gateway_response=row.gateway_response,
            processor_id=str(row.pk),
            authorization=self._authorization(row.authorization)
            if row.authorization
            else None,
        )
