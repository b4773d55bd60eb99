"""Reads of the dashboard's payment link pages, scoped to one merchant."""

from django.db.models import Count, Q, QuerySet

from config.api.ids import row_by_public_id

from ..models import LINK_ID_PREFIX, CheckoutSession, PaymentLink


def links_with_orders(merchant) -> QuerySet[PaymentLink]:
    """The merchant's links, newest first, each with `paid_orders`: its sessions
    that were completed (deposit paid)."""
    return (
        PaymentLink.objects.filter(merchant=merchant)
        .annotate(
            paid_orders=Count(
                "sessions",
                filter=Q(sessions__status=CheckoutSession.Status.COMPLETED),
            )
        )
        .order_by("-created_at", "-id")
    )


def link_of_merchant(merchant, link_id: str) -> PaymentLink | None:
    return row_by_public_id(links_with_orders(merchant), link_id, LINK_ID_PREFIX)


def sessions_of_link(link: PaymentLink) -> QuerySet[CheckoutSession]:
    return link.sessions.select_related("plan").order_by("-created_at", "-id")
