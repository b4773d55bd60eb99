"""Banks, account resolution and transfers of the sandbox processor."""

from django.db import IntegrityError, transaction

from config.api.ids import random_token

from ...errors import AccountNotResolved, ProcessorRefused
from ...models import SandboxRecipient, SandboxTransfer
from ..base import ResolvedAccount, TransferRecipient, TransferResult
from .values import FAILING_PAYOUT_ACCOUNT_DIGIT, sandbox_banks


class SandboxPayouts:
    """The payout half of SandboxProcessor (mixed into it)."""

    def list_banks(self):
        return list(sandbox_banks())

    def resolve_account(self, *, bank_code, account_number):
        if bank_code not in {bank.code for bank in sandbox_banks()}:
            raise AccountNotResolved("The bank code is not a supported bank.")
        if len(account_number) != 10 or not account_number.isdigit():
            raise AccountNotResolved("Account numbers have exactly 10 digits.")
        return ResolvedAccount(
            account_number=account_number,
            account_name=f"SANDBOX ACCOUNT {account_number[-4:]}",
            bank_code=bank_code,
        )

    def create_transfer_recipient(
        self, *, name, bank_code, account_number, currency="NGN"
    ):
        recipient, _ = SandboxRecipient.objects.get_or_create(
            bank_code=bank_code,
            account_number=account_number,
            defaults={
                "recipient_code": f"RCP_{random_token(64).lower()}",
                "name": name,
            },
        )
        return TransferRecipient(
            recipient_code=recipient.recipient_code,
            name=recipient.name,
            account_number=recipient.account_number,
            bank_code=recipient.bank_code,
        )

    def transfer(self, *, amount, recipient_code, reference, reason, currency="NGN"):
        recipient = SandboxRecipient.objects.filter(
            recipient_code=recipient_code
        ).first()
        if recipient is None:
            raise ProcessorRefused(
                "The payment processor refused the request: Recipient not found",
                processor_message="Recipient not found",
                processor_status=400,
            )
        try:
            with transaction.atomic():
                row = SandboxTransfer.objects.create(
                    reference=reference,
                    transfer_code=f"TRF_{random_token(64).lower()}",
                    recipient=recipient,
                    amount=amount,
                    currency=currency,
                    reason=reason,
                )
        except IntegrityError:
            raise ProcessorRefused(
                "The payment processor refused the request: Duplicate transfer "
                "reference",
                processor_message="Duplicate transfer reference",
                processor_status=400,
            ) from None
        return self._transfer(row)

    def verify_transfer(self, *, reference):
        """Sandbox transfers settle when first verified: accounts ending in 9 fail."""
        with transaction.atomic():
            row = (
                SandboxTransfer.objects.select_for_update(of=("self",))
                .select_related("recipient")
                .filter(reference=reference)
                .first()
            )
            if row is None:
                return None
            if row.status == SandboxTransfer.Status.PENDING:
                if row.recipient.account_number.endswith(FAILING_PAYOUT_ACCOUNT_DIGIT):
                    outcome = SandboxTransfer.Status.FAILED
                    row.failure_reason = (
                        "Sandbox payout accounts ending in 9 always fail."
                    )
                else:
                    outcome = SandboxTransfer.Status.SUCCESS
                row.transition_to(outcome, update_fields=["failure_reason"])
        return self._transfer(row)

    @staticmethod
    def _transfer(row: SandboxTransfer) -> TransferResult:
        return TransferResult(
            reference=row.reference,
            status=row.status,
            amount=row.amount,
            transfer_code=row.transfer_code,
            reason=row.failure_reason or row.reason,
        )
