"""The sandbox's resolve call (`POST /api/v1/sandbox/disputes/{dispute_id}/
resolve`): the customer's bank decides a dispute of the merchant's, as the
sandbox processor's `charge.dispute.resolve` (handled at once, the way every
processor event is). On the sandbox processor only."""

from django.utils import timezone
from rest_framework import serializers

from config.api import responses
from config.api.ids import row_by_public_id
from config.api.serializers import StrictSerializer
from merchants.authentication import resolve_merchant
from payments.gateway.services import sandbox_dispute_decide

from ..collection.api import SandboxApi
from .errors import DisputeDeadlinePassed, DisputeNotFound, DisputeNotOpen
from .models import Dispute
from .serializers import dispute_output

WON, LOST = "won", "lost"


class SandboxResolveInput(StrictSerializer):
    """`{outcome}`: `won` (the bank decides for the merchant) or `lost`."""

    outcome = serializers.ChoiceField(
        choices=(WON, LOST),
        error_messages={"invalid_choice": 'The outcome is "won" or "lost".'},
    )


def dispute_of_merchant(merchant, dispute_id: str) -> Dispute:
    """The merchant's own dispute; any other id (another merchant's) is a 404."""
    rows = Dispute.objects.select_related("merchant", "plan", "installment").filter(
        merchant=merchant
    )
    dispute = row_by_public_id(rows, dispute_id, "dp")
    if dispute is None:
        raise DisputeNotFound()
    return dispute


def dispute_sandbox_resolve(*, dispute: Dispute, won: bool) -> Dispute:
    """The bank decides an open dispute: the sandbox resolves it and its
    `charge.dispute.resolve` is handled (the money moves, `dispute.won` or
    `dispute.lost` is sent). 409 for one no longer open or, unanswered, past
    its deadline (lost: the pass resolves it so)."""
    if not dispute.is_open:
        raise DisputeNotOpen(
            f"This dispute is {dispute.status}: the bank has nothing left to decide."
        )
    unanswered = dispute.status == Dispute.Status.NEEDS_RESPONSE
    if unanswered and dispute.due_at <= timezone.now():
        raise DisputeDeadlinePassed()
    sandbox_dispute_decide(dispute_id=dispute.processor_dispute_id, won=won)
    dispute.refresh_from_db()
    decided = Dispute.Status.WON if won else Dispute.Status.LOST
    if dispute.status != decided:
        # The processor had resolved it otherwise already (its answer stands).
        raise DisputeNotOpen(
            f"This dispute is {dispute.status}: the bank has nothing left to decide."
        )
    return dispute


class SandboxDisputeResolveApi(SandboxApi):
    """`POST /api/v1/sandbox/disputes/<dispute_id>/resolve` `{outcome}`: the
    bank decides the merchant's dispute; answer the dispute."""

    def post(self, request, dispute_id):
        dispute = dispute_of_merchant(resolve_merchant(request), dispute_id)
        data = SandboxResolveInput.validated(request.data)
        dispute = dispute_sandbox_resolve(dispute=dispute, won=data["outcome"] == WON)
        return responses.ok(dispute_output(dispute))
