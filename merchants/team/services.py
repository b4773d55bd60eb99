"""The team's use-cases: the owner made at registration, signing in, passwords,
invitations, role changes and removals (DESIGN section 20).

A role change and a removal move the member's `credential_version` on: their
JWTs and dashboard sessions end at once (config/api/auth.py, the dashboard's
session stamp)."""

import hashlib
import secrets
from datetime import timedelta
from functools import partial

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import reverse
from django.utils import timezone

from config.accounts import AccountKind
from config.api.passwords import validate_new_password
from config.money import format_kobo

from .. import emails
from ..audit.actors import SYSTEM, Actor, member_actor
from ..audit.services import audit_record
from ..errors import (
    EmailAlreadyRegistered,
    ForbiddenForRole,
    InvitationInvalid,
    LastOwner,
    MemberAlreadyExists,
    RefundOverLimit,
)
from ..models import Merchant
from . import selectors
from .models import Invitation, Member
from .roles import LIMITED_REFUNDS, Role, may

# The sign-in throttle's key keeps the name it had when merchants signed in.
MEMBERS = AccountKind("merchant", selectors.member_by_email, EmailAlreadyRegistered)
INVITATION_LIFETIME = timedelta(hours=72)


def require(member: Member | None, permission: str) -> None:
    """ForbiddenForRole unless `member` (None: an API key, acting as the
    merchant) may do `permission`."""
    if member is not None and not may(member.role, permission):
        raise ForbiddenForRole(
            f"Your role ({member.role}) does not allow this: it needs the "
            f"'{permission}' permission (see the team guide)."
        )


def check_refund_limit(
    member: Member | None, amount: int, *, plan=None, actor: Actor = SYSTEM
) -> None:
    """RefundOverLimit when `amount` (kobo) is over what one refund of this
    member may give back: a support member's own limit (none set: nothing).
    The refusal of a refund of `plan` is recorded in the audit log."""
    if member is None or member.role not in LIMITED_REFUNDS:
        return
    limit = member.refund_limit or 0
    if amount > limit:
        if plan is not None:
            audit_record(
                merchant=member.merchant,
                action="refund.refused_over_limit",
                actor=actor,
                object_type="payment_plan",
                object_id=plan.public_id,
                changes={"amount": [None, amount], "refund_limit": [None, limit]},
            )
        raise RefundOverLimit(
            f"This refund of {format_kobo(amount)} is more than your refund limit "
            f"of {format_kobo(limit)}. An owner or an admin of your team can make "
            "it, or raise your limit."
        )


def owner_create(*, merchant: Merchant, email: str, password: str) -> Member:
    """The first owner of a merchant being registered (inside its transaction)."""
    member = Member(merchant=merchant, email=email, role=Role.OWNER)
    member.set_password(password)
    member.save()
    return member


def member_sign_in(*, email: str, password: str, client_ip: str) -> Member:
    return MEMBERS.sign_in(email=email, password=password, client_ip=client_ip)


def _locked(member: Member) -> Member:
    return (
        Member.objects.select_for_update(of=("self",))
        .select_related("merchant")
        .get(pk=member.pk)
    )


def _team_locked(member: Member) -> Member:
    """For a change of the team (a role, a removal): the merchant's row first,
    the team's one lock, so two owners demoting each other at once take turns
    (and the second finds no other owner) instead of deadlocking."""
    Merchant.objects.select_for_update().filter(pk=member.merchant_id).first()
    return _locked(member)


def member_audited(member: Member, action: str, actor: Actor, **fields) -> None:
    """The audit row of a change of `member` (or made by them), in the change's
    transaction."""
    audit_record(
        merchant=member.merchant,
        action=action,
        actor=actor,
        object_type="member",
        object_id=member.public_id,
        **fields,
    )


def member_set_password(
    *, member: Member, password: str, actor: Actor = SYSTEM, reset: bool = False
) -> Member:
    """Store a new password (the caller ran Django's validators): every session
    and token of the member issued before ends."""
    with transaction.atomic():
        member = _locked(member)
        member.set_password(password)
        member.save(update_fields=["password", "credential_version", "updated_at"])
        member_audited(
            member,
            "password.reset" if reset else "password.changed",
            actor,
            changes={"password": [None, None]},
        )
    return member


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invitation_link(token: str) -> str:
    path = reverse("merchants_dashboard:invitation", kwargs={"token": token})
    return f"{settings.BASE_URL}{path}"


def _check_role_change(
    by: Member, role: str, *, current: str | None = None, merchant_id=None
) -> None:
    """`by` may give `role` (replacing `current`) to a member of `merchant_id`
    (None: their own team's)."""
    if merchant_id is not None and merchant_id != by.merchant_id:
        raise ForbiddenForRole("This member is not in your team.")
    require(by, "members")
    if Role.OWNER in (role, current):
        require(by, "ownership")


def member_invite(
    *,
    by: Member,
    email: str,
    role: str,
    refund_limit: int | None = None,
    actor: Actor = SYSTEM,
) -> tuple[Invitation, str]:
    """An invitation e-mailed to `email` (the link carries the token; only its
    hash is stored). MemberAlreadyExists when the address already signs in."""
    _check_role_change(by, role)
    email = email.strip().lower()
    if selectors.member_by_email(email) is not None:
        raise MemberAlreadyExists()
    token = secrets.token_urlsafe(32)
    with transaction.atomic():
        invitation = Invitation.objects.create(
            merchant=by.merchant,
            email=email,
            role=role,
            refund_limit=refund_limit if role in LIMITED_REFUNDS else None,
            token_hash=_token_hash(token),
            invited_by=by,
            expires_at=timezone.now() + INVITATION_LIFETIME,
        )
        audit_record(
            merchant=by.merchant,
            action="member.invited",
            actor=actor,
            object_type="invitation",
            object_id=invitation.public_id,
            changes={
                "email": [None, email],
                "role": [None, role],
                "refund_limit": [None, invitation.refund_limit],
            },
        )
    hours = int(INVITATION_LIFETIME.total_seconds() // 3600)
    transaction.on_commit(
        partial(
            emails.send_invitation,
            email=email,
            link=invitation_link(token),
            role=role,
            hours=hours,
        )
    )
    return invitation, token


def invitation_by_token(token: str) -> Invitation | None:
    """The open invitation this link's token names, or None."""
    invitation = (
        Invitation.objects.select_related("merchant")
        .filter(token_hash=_token_hash(token))
        .first()
    )
    if (
        invitation is None
        or invitation.accepted_at is not None
        or invitation.revoked_at is not None
        or invitation.expires_at <= timezone.now()
    ):
        return None
    return invitation


def invitation_accept(
    *, token: str, password: str, actor: Actor | None = None
) -> Member:
    """The invitee's member account, with the password they chose. The
    invitation row is locked: two tabs accepting at once make one member."""
    found = invitation_by_token(token)
    if found is None:
        raise InvitationInvalid()
    validate_new_password(password, account=Member(email=found.email))
    try:
        with transaction.atomic():
            invitation = Invitation.objects.select_for_update().get(pk=found.pk)
            if invitation.accepted_at is not None or invitation.revoked_at:
                raise InvitationInvalid()
            member = Member(
                merchant_id=invitation.merchant_id,
                email=invitation.email,
                role=invitation.role,
                refund_limit=invitation.refund_limit,
            )
            member.set_password(password)
            member.save()
            invitation.accepted_at = timezone.now()
            invitation.accepted_member = member
            invitation.save(update_fields=["accepted_at", "accepted_member"])
            member_audited(
                member,
                "member.joined",
                actor if actor is not None else member_actor(member),
                changes={"role": [None, member.role]},
            )
    except IntegrityError:
        raise MemberAlreadyExists() from None
    return member


def invitation_revoke(
    *, by: Member, invitation: Invitation, actor: Actor = SYSTEM
) -> None:
    _check_role_change(by, invitation.role, merchant_id=invitation.merchant_id)
    with transaction.atomic():
        withdrawn = Invitation.objects.filter(
            pk=invitation.pk, accepted_at__isnull=True, revoked_at__isnull=True
        ).update(revoked_at=timezone.now())
        if withdrawn:
            audit_record(
                merchant=invitation.merchant,
                action="member.invitation_withdrawn",
                actor=actor,
                object_type="invitation",
                object_id=invitation.public_id,
                changes={"email": [invitation.email, None]},
            )


def _keeps_an_owner(member: Member) -> None:
    others = Member.objects.filter(
        merchant_id=member.merchant_id,
        role=Role.OWNER,
        status=Member.Status.ACTIVE,
    ).exclude(pk=member.pk)
    if not others.exists():
        raise LastOwner()


def member_change_role(
    *,
    by: Member,
    member: Member,
    role: str,
    refund_limit: int | None = None,
    actor: Actor = SYSTEM,
) -> Member:
    """A new role (and refund limit): the member's sessions and tokens end."""
    _check_role_change(by, role, current=member.role, merchant_id=member.merchant_id)
    with transaction.atomic():
        member = _team_locked(member)
        if member.role == Role.OWNER and role != Role.OWNER:
            _keeps_an_owner(member)
        before = {"role": member.role, "refund_limit": member.refund_limit}
        member.role = role
        member.refund_limit = refund_limit if role in LIMITED_REFUNDS else None
        member.credential_version += 1
        member.save(
            update_fields=["role", "refund_limit", "credential_version", "updated_at"]
        )
        member_audited(
            member,
            "member.role_changed",
            actor,
            changes={
                name: [old, getattr(member, name)]
                for name, old in before.items()
                if old != getattr(member, name)
            },
        )
    return member


def member_remove(*, by: Member, member: Member, actor: Actor = SYSTEM) -> Member:
    """The member signs in no more: sessions and tokens end at once."""
    _check_role_change(
        by, member.role, current=member.role, merchant_id=member.merchant_id
    )
    with transaction.atomic():
        member = _team_locked(member)
        if not member.is_active:
            return member
        if member.role == Role.OWNER:
            _keeps_an_owner(member)
        member.credential_version += 1
        member.transition_to(
            Member.Status.REMOVED, update_fields=["credential_version"]
        )
        member_audited(
            member, "member.removed", actor, changes={"status": ["active", "removed"]}
        )
    return member
