from config.api.ids import row_by_public_id

from .models import Invitation, Member
from .roles import Role


def member_by_email(email: str) -> Member | None:
    """The active member signing in with `email`, its merchant loaded."""
    return (
        Member.objects.select_related("merchant")
        .filter(email__iexact=email.strip(), status=Member.Status.ACTIVE)
        .first()
    )


def member_by_public_id(public_id: str) -> Member | None:
    """An active member by id; a removed member is no one (its tokens stop)."""
    member = row_by_public_id(
        Member.objects.select_related("merchant"), public_id, "mem"
    )
    return member if member is not None and member.is_active else None


def owner_of(merchant) -> Member | None:
    """The merchant's first active owner."""
    return (
        Member.objects.select_related("merchant")
        .filter(merchant=merchant, role=Role.OWNER, status=Member.Status.ACTIVE)
        .order_by("created_at", "id")
        .first()
    )


def token_principal(public_id: str) -> Member | None:
    """The member a merchant JWT's `sub` names. Tokens issued before members
    existed name the merchant (`mer_`): they act as its first owner, whose
    credential version the data migration carried over."""
    if public_id.startswith("mer_"):
        from ..selectors import merchant_by_public_id

        merchant = merchant_by_public_id(public_id)
        return owner_of(merchant) if merchant is not None else None
    return member_by_public_id(public_id)


def members_of(merchant):
    return Member.objects.filter(merchant=merchant, status=Member.Status.ACTIVE)


def open_invitations_of(merchant):
    from django.utils import timezone

    return Invitation.objects.filter(
        merchant=merchant,
        accepted_at__isnull=True,
        revoked_at__isnull=True,
        expires_at__gt=timezone.now(),
    ).select_related("invited_by")
