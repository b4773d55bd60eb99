"""The merchant's payout bank account, checked and named by the processor."""

from django.core.exceptions import ValidationError
from django.db import transaction

from merchants.audit.actors import SYSTEM, Actor
from merchants.audit.services import audit_record
from merchants.models import Merchant

from ...gateway.processors import processor_of
from ...gateway.selectors import bank_by_code

ACCOUNT_NUMBER_DIGITS = 10


def _masked(account_number: str) -> str | None:
    """The last four digits: enough to recognise an account in the audit log."""
    return f"******{account_number[-4:]}" if account_number else None


def payout_account_set(
    *, merchant: Merchant, bank_code: str, account_number: str, actor: Actor = SYSTEM
) -> Merchant:
    """Check the bank against the processor's list, resolve the account holder's
    name through the processor, and save the merchant's payout account."""
    errors = {}
    if not (len(account_number) == ACCOUNT_NUMBER_DIGITS and account_number.isdigit()):
        errors["account_number"] = ["A NUBAN account number has exactly 10 digits."]
    # The processor of the merchant's side: a test side's account is checked
    # against the sandbox's banks and names, never sent to the live processor.
    processor = processor_of(merchant)
    bank = bank_by_code(bank_code, processor=processor)
    if bank is None:
        errors["bank_code"] = [
            "Unknown bank_code: GET /api/v1/payment-methods/banks lists the "
            "supported banks."
        ]
    if errors:
        raise ValidationError(errors)
    resolved = processor.resolve_account(
        bank_code=bank.code, account_number=account_number
    )
    with transaction.atomic(durable=True):
        merchant = Merchant.objects.select_for_update().get(pk=merchant.pk)
        before = (merchant.payout_bank_code, _masked(merchant.payout_account_number))
        merchant.payout_bank_code = bank.code
        merchant.payout_account_number = account_number
        merchant.payout_account_name = resolved.account_name[:200]
        merchant.save(
            update_fields=[
                "payout_bank_code",
                "payout_account_number",
                "payout_account_name",
                "updated_at",
            ]
        )
        audit_record(
            merchant=merchant,
            action="payout_account.changed",
            actor=actor,
            object_type="payout_account",
            object_id=merchant.public_id,
            changes={
                "bank_code": [before[0] or None, bank.code],
                "account_number": [before[1], _masked(account_number)],
            },
        )
    return merchant
