"""Reads of deposit attempts: the deposits by bank transfer or USSD (DESIGN
section 17) by their public id, and those whose time is up."""

from datetime import datetime

from config.api.ids import looks_like_public_id
from payments.gateway.processors.base import PayChannel

from .models import PAYMENT_ID_PREFIX, DepositAttempt


def deposit_offline_by_public_id(public_id: str) -> DepositAttempt | None:
    """The deposit by bank transfer or USSD named `pay_...` (the sandbox's
    complete and expire endpoints find it by it), with its plan and merchant;
    None for any other id."""
    if not looks_like_public_id(public_id, PAYMENT_ID_PREFIX):
        return None
    return (
        DepositAttempt.objects.filter(
            public_id=public_id, channel__in=PayChannel.OFFLINE
        )
        .select_related("plan__merchant")
        .first()
    )


def deposits_offline_due_to_expire(*, now: datetime):
    """Deposits by transfer or USSD still waiting after their `expires_at`."""
    return DepositAttempt.objects.filter(
        status=DepositAttempt.Status.PROCESSING,
        channel__in=PayChannel.OFFLINE,
        expires_at__lte=now,
    ).order_by("expires_at", "pk")
