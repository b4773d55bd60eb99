"""The sandbox's disputes (DESIGN section 19; docs/disputes.md, "The sandbox").

A charge of the disputed card (`CARD_DISPUTED`) is disputed by the customer's
bank a minute after it succeeded: the sandbox's pass (`disputes_open`) opens a
`SandboxDispute` for it, and the layer above announces it with
`charge.dispute.create`, as Paystack's webhook would. The merchant answers or
accepts it through the service; `dispute_decide` (the sandbox's resolve call)
settles one as the bank would, and an unanswered one is lost past its
deadline, as at Paystack.
"""

import hashlib
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from config.api.ids import new_public_id

from ...errors import ProcessorRefused
from ...models import SandboxAuthorization, SandboxDispute, SandboxTransaction
from ..dispute_types import DisputeResolution, DisputeState, ProcessorDispute

# How long after a disputed charge succeeded its dispute opens, and how long
# the merchant then has to answer.
DISPUTE_AFTER = timedelta(minutes=1)
ANSWER_WITHIN = timedelta(days=7)
# What the sandbox says of a dispute the bank decided for the customer.
CUSTOMER_WON = "customer-won"
REASON = "The cardholder does not recognise this payment."
# What the sandbox announces of a dispute (`charge.dispute.<what>`).
ANNOUNCE_CREATE = "create"
ANNOUNCE_RESOLVE = "resolve"


def _result(row: SandboxDispute) -> ProcessorDispute:
    return ProcessorDispute(
        dispute_id=row.dispute_id,
        transaction_reference=row.transaction.reference,
        amount=row.amount,
        currency=row.transaction.currency,
        status=row.status,
        resolution=row.resolution,
        category=row.category,
        reason=row.reason,
        due_at=row.due_at,
    )


def _refused(message: str) -> ProcessorRefused:
    return ProcessorRefused(
        f"The payment processor refused the request: {message}",
        processor_message=message,
        processor_status=400,
    )


class SandboxDisputes:
    """Disputes: re-read one, answer one, accept one; and the sandbox's own
    opening and deciding of them."""

    def fetch_dispute(self, *, dispute_id):
        row = (
            SandboxDispute.objects.select_related("transaction")
            .filter(dispute_id=dispute_id)
            .first()
        )
        return None if row is None else _result(row)

    def _open_row(self, dispute_id: str) -> SandboxDispute:
        row = (
            SandboxDispute.objects.select_for_update(of=("self",))
            .select_related("transaction")
            .filter(dispute_id=dispute_id)
            .first()
        )
        if row is None:
            raise _refused("Dispute not found")
        if row.status == DisputeState.RESOLVED:
            raise _refused("Dispute has already been resolved")
        if row.due_at <= timezone.now():
            raise _refused("The deadline to respond to this dispute has passed")
        return row

    def answer_dispute(self, *, dispute_id, evidence, refund_amount):
        with transaction.atomic():
            row = self._open_row(dispute_id)
            row.evidence = {
                "customer_email": evidence.customer_email,
                "customer_name": evidence.customer_name,
                "customer_phone": evidence.customer_phone,
                "service_details": evidence.service_details,
                "delivery_address": evidence.delivery_address,
                "delivery_date": evidence.delivery_date,
                "message": evidence.message,
                "refund_amount": refund_amount,
                "files": [
                    {
                        "filename": item.filename,
                        "content_type": item.content_type,
                        "size": len(item.content),
                        "sha256": hashlib.sha256(item.content).hexdigest(),
                    }
                    for item in evidence.files
                ],
            }
            row.transition_to(DisputeState.AWAITING_BANK, update_fields=["evidence"])
        return _result(row)

    def accept_dispute(self, *, dispute_id, refund_amount, message):
        with transaction.atomic():
            row = self._open_row(dispute_id)
            row.resolution = DisputeResolution.MERCHANT_ACCEPTED
            row.evidence = {**row.evidence, "accepted_message": message}
            row.transition_to(
                DisputeState.RESOLVED, update_fields=["resolution", "evidence"]
            )
        return _result(row)

    # -- the sandbox's own calls ------------------------------------------

    def dispute_open(self, *, transaction_reference: str) -> ProcessorDispute:
        """The customer's bank disputes a successful sandbox charge (the whole
        of it); opening it twice gives the one dispute."""
        charge = SandboxTransaction.objects.get(
            reference=transaction_reference, status=SandboxTransaction.Status.SUCCESS
        )
        row = charge.disputes.first()
        if row is None:
            row = SandboxDispute.objects.create(
                dispute_id=new_public_id("sbdsp"),
                transaction=charge,
                amount=charge.amount,
                reason=REASON,
                due_at=timezone.now() + ANSWER_WITHIN,
            )
        return _result(row)

    def disputes_due(self, *, now=None) -> list[str]:
        """The references of the disputed card's charges whose dispute is due
        to open (succeeded at least DISPUTE_AFTER ago, none opened yet)."""
        now = now or timezone.now()
        return list(
            SandboxTransaction.objects.filter(
                authorization__behaviour=SandboxAuthorization.Behaviour.DISPUTED,
                status=SandboxTransaction.Status.SUCCESS,
                # Collections only: the card's verification charge is refunded
                # at once, nothing of it is left to dispute.
                kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE,
                updated_at__lte=now - DISPUTE_AFTER,
                disputes__isnull=True,
            )
            .order_by("id")
            .values_list("reference", flat=True)
        )

    def dispute_decide(self, *, dispute_id: str, won: bool) -> ProcessorDispute:
        """The bank decides (the sandbox's resolve call): for the merchant
        (`declined`) or for the customer. A resolved dispute stays as it is."""
        with transaction.atomic():
            row = (
                SandboxDispute.objects.select_for_update(of=("self",))
                .select_related("transaction")
                .get(dispute_id=dispute_id)
            )
            if row.status != DisputeState.RESOLVED:
                row.resolution = DisputeResolution.DECLINED if won else CUSTOMER_WON
                row.transition_to(DisputeState.RESOLVED, update_fields=["resolution"])
        return _result(row)

    def disputes_unannounced(self, *, since) -> list[tuple[str, str]]:
        """(`create` or `resolve`, dispute id) of each opening and resolution
        whose event was not sent yet (within `since`, as Paystack retries for
        72 hours): openings first, each in the order it happened."""
        rows = SandboxDispute.objects.order_by("pk")
        opened = rows.filter(created_announced_at__isnull=True, created_at__gte=since)
        resolved = rows.filter(
            status=DisputeState.RESOLVED,
            resolved_announced_at__isnull=True,
            updated_at__gte=since,
        )
        return [
            *(
                (ANNOUNCE_CREATE, i)
                for i in opened.values_list("dispute_id", flat=True)
            ),
            *(
                (ANNOUNCE_RESOLVE, i)
                for i in resolved.values_list("dispute_id", flat=True)
            ),
        ]

    def dispute_announced(self, *, dispute_id: str, what: str) -> None:
        """The event `what` (`create`, `resolve`) of the dispute was handled."""
        field = {
            ANNOUNCE_CREATE: "created_announced_at",
            ANNOUNCE_RESOLVE: "resolved_announced_at",
        }[what]
        SandboxDispute.objects.filter(dispute_id=dispute_id).update(
            **{field: timezone.now()}
        )

    def disputes_lapse(self, *, now=None) -> int:
        """An unanswered dispute past its deadline is resolved for the
        customer, as at Paystack."""
        now = now or timezone.now()
        return SandboxDispute.transition_where(
            SandboxDispute.objects.filter(
                status=DisputeState.AWAITING_MERCHANT, due_at__lte=now
            ),
            DisputeState.RESOLVED,
            at=now,
            same={"resolution": CUSTOMER_WON},
        )
