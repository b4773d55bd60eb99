"""Reads of disputes for the merchant API (DESIGN section 19)."""

from django.db.models import QuerySet

from config.api.ids import looks_like_public_id, row_by_public_id

from .errors import DisputeNotFound
from .models import Dispute


def disputes_of_merchant(
    merchant, *, status: str | None = None, plan_id: str | None = None
) -> QuerySet[Dispute]:
    """The merchant's disputes, the nearest deadline first."""
    rows = Dispute.objects.filter(merchant=merchant).select_related(
        "merchant", "plan", "installment"
    )
    if status:
        rows = rows.filter(status=status)
    if plan_id is not None:
        if not looks_like_public_id(plan_id, "plan"):
            return rows.none()
        rows = rows.filter(plan__public_id=plan_id)
    return rows.order_by("due_at", "id")


def dispute_of_merchant(merchant, dispute_id: str) -> Dispute:
    """The merchant's own dispute; any other id (another merchant's) is a 404."""
    dispute = row_by_public_id(disputes_of_merchant(merchant), dispute_id, "dp")
    if dispute is None:
        raise DisputeNotFound()
    return dispute
