"""Refunds of the sandbox processor (DESIGN sections 9 and 14).

A refund asked under a reference of the service (Paystack's `merchant_note`, how
`payments.gateway.services.refunds` asks) is `pending` until the sandbox's
settlement pass (`sandbox_refunds_settle`, every minute) makes it `processed`;
one of a charge made with the refunds-fail card (4084080000005408) is `failed`
at once. The refund of a verification charge (a reference under
`VERIFICATION_REFUND_PREFIX`), or one asked without a reference, is `processed`
at once and sends no processor event, as it always did.
"""

from django.db import transaction
from django.utils import timezone

from ...errors import ProcessorRefused
from ...models import SandboxAuthorization, SandboxRefund, SandboxTransaction
from ..base import VERIFICATION_REFUND_PREFIX, RefundResult

REFUND_ID_PREFIX = "sbx_refund_"


class RefundStatus:
    PENDING = "pending"
    PROCESSED = "processed"
    FAILED = "failed"


def _refused(message: str, status: int = 400) -> ProcessorRefused:
    return ProcessorRefused(
        f"The payment processor refused the request: {message}",
        processor_message=message,
        processor_status=status,
    )


def _given_back_at_once(merchant_note: str) -> bool:
    return not merchant_note or merchant_note.startswith(VERIFICATION_REFUND_PREFIX)


def _first_status(row: SandboxTransaction, merchant_note: str) -> str:
    if _given_back_at_once(merchant_note):
        return RefundStatus.PROCESSED
    auth = row.authorization
    if (
        auth is not None
        and auth.behaviour == SandboxAuthorization.Behaviour.REFUNDS_FAIL
    ):
        return RefundStatus.FAILED
    return RefundStatus.PENDING


def _result(refund: SandboxRefund) -> RefundResult:
    return RefundResult(
        refund_id=f"{REFUND_ID_PREFIX}{refund.pk}",
        transaction_reference=refund.transaction.reference,
        amount=refund.amount,
        status=refund.status,
        currency=refund.transaction.currency,
        merchant_note=refund.merchant_note,
    )


class SandboxRefunds:
    """The refund half of SandboxProcessor (mixed into it)."""

    def refund(
        self,
        *,
        transaction_reference,
        amount=None,
        currency=None,
        merchant_note="",
        customer_note="",
    ):
        note = merchant_note.strip()[:255]
        with transaction.atomic():
            row = (
                SandboxTransaction.objects.select_for_update()
                .filter(reference=transaction_reference, status="success")
                .first()
            )
            if row is None:
                raise _refused("Transaction not found", 404)
            # A failed refund gave nothing back: what it asked for is left.
            refunded = sum(
                refund.amount
                for refund in row.refunds.exclude(status=RefundStatus.FAILED)
            )
            left = row.amount - refunded
            amount = left if amount is None else amount
            if left <= 0:
                raise _refused("Transaction has been fully reversed")
            if amount <= 0 or amount > left:
                raise _refused(
                    "Refund amount cannot be more than what is left of the transaction"
                )
            refund = SandboxRefund.objects.create(
                transaction=row,
                amount=amount,
                status=_first_status(row, note),
                merchant_note=note,
            )
        return _result(refund)

    def fetch_refund(self, *, refund_id):
        number = (
            refund_id.removeprefix(REFUND_ID_PREFIX)
            if refund_id.startswith(REFUND_ID_PREFIX)
            else ""
        )
        if not number.isdigit():
            return None
        refund = (
            SandboxRefund.objects.select_related("transaction")
            .filter(pk=int(number))
            .first()
        )
        return _result(refund) if refund is not None else None

    def list_refunds(self, *, transaction_reference):
        return [
            _result(refund)
            for refund in SandboxRefund.objects.select_related("transaction")
            .filter(transaction__reference=transaction_reference)
            .order_by("pk")
        ]

    # -- the settlement pass (sandbox only) ---------------------------------

    def refunds_settle(self) -> int:
        """Every pending refund is processed (the one place a sandbox refund
        changes status; processed and failed ones never move)."""
        return SandboxRefund.transition_where(
            SandboxRefund.objects.all(), SandboxRefund.Status.PROCESSED
        )

    def refunds_unannounced(self, *, since) -> list[RefundResult]:
        """Settled refunds asked under a reference whose processor event was
        not sent yet (created after `since`, as Paystack retries for 72 h)."""
        return [
            _result(refund)
            for refund in SandboxRefund.objects.select_related("transaction")
            .filter(
                status__in=(RefundStatus.PROCESSED, RefundStatus.FAILED),
                announced_at__isnull=True,
                created_at__gte=since,
            )
            .exclude(merchant_note="")
            .exclude(merchant_note__startswith=VERIFICATION_REFUND_PREFIX)
            .order_by("pk")
        ]

    def refund_announced(self, *, refund_id: str) -> None:
        SandboxRefund.objects.filter(
            pk=int(refund_id.removeprefix(REFUND_ID_PREFIX))
        ).update(announced_at=timezone.now())
