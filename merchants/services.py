"""Merchant use-cases: registration, approval, API access, suspension, API keys,
settings and passwords."""

import secrets
from functools import partial

from django.db import IntegrityError, transaction
from django.utils import timezone

from config.api import login_guard, ratelimit
from config.api.passwords import validate_new_password

from . import emails, selectors
from .audit.actors import SYSTEM, Actor
from .audit.services import audit_record
from .errors import ApiAccessDisabled, EmailAlreadyRegistered, MerchantNotActive
from .models import (
    API_KEY_PREFIXES,
    LEGAL_SETTINGS,
    PLAN_SETTINGS,
    TEST_SIDE_SUFFIX,
    ApiKey,
    Merchant,
    hash_api_key,
)
from .team import selectors as team_selectors
from .team.models import Member
from .team.services import MEMBERS, owner_create
from .tokens import password_reset_link


def _email(send, account: Merchant | Member, **details) -> None:
    """`send` the merchant (or one member) an e-mail once the transaction
    commits."""
    transaction.on_commit(partial(send, email=account.email, **details))


def merchant_create(
    *, email: str, password: str, business_name: str, business_url: str
) -> Merchant:
    """A new pending merchant and its first owner, who signs in with `email` and
    `password`; acknowledged by e-mail. EmailAlreadyRegistered when the address
    has an account (a merchant's, or a member's sign-in). Not throttled: for
    our own callers (the demo, benchmarks); a sign-up from outside is
    `merchant_register`."""
    email = email.strip().lower()
    merchant = Merchant(
        email=email, business_name=business_name.strip(), business_url=business_url
    )
    validate_new_password(password, account=merchant)
    taken = selectors.merchant_by_email(email) or team_selectors.member_by_email(email)
    if taken is not None:
        raise EmailAlreadyRegistered()
    try:
        with transaction.atomic():
            merchant.save()
            owner_create(merchant=merchant, email=email, password=password)
    except IntegrityError:
        # Two registrations raced past the lookup: the unique index refused one.
        raise EmailAlreadyRegistered() from None
    _email(emails.send_application_received, merchant)
    return merchant


def merchant_register(
    *,
    email: str,
    password: str,
    business_name: str,
    business_url: str,
    client_ip: str,
) -> Merchant:
    """A sign-up through the API: `merchant_create`, throttled per client address
    and per e-mail address (RateLimited). Only a sign-up whose password passes
    counts: one refused for its password sends nothing, and someone struggling
    with the password rules should not be locked out by them."""
    validate_new_password(
        password,
        account=Merchant(email=email.strip().lower(), business_name=business_name),
    )
    login_guard.check_sign_up_allowed(
        kind=MEMBERS.name, email=email, client_ip=client_ip
    )
    return merchant_create(
        email=email,
        password=password,
        business_name=business_name,
        business_url=business_url,
    )


def merchant_sign_up(
    *,
    email: str,
    password: str,
    business_name: str,
    business_url: str,
    client_ip: str,
) -> Merchant | None:
    """A sign-up on the web form: as `merchant_register`, but an address that
    already has an account is not refused. Its owner is told by e-mail instead,
    and the caller answers as for a new account (None here), so that the form
    tells a stranger nothing about who has an account."""
    try:
        return merchant_register(
            email=email,
            password=password,
            business_name=business_name,
            business_url=business_url,
            client_ip=client_ip,
        )
    except EmailAlreadyRegistered:
        owner = team_selectors.member_by_email(email) or selectors.merchant_by_email(
            email
        )
        if owner is not None:
            _email(emails.send_sign_up_attempted, owner)
        return None


def merchant_login(*, email: str, password: str, client_ip: str) -> Member:
    """The member signing in (the merchant is `member.merchant`)."""
    return MEMBERS.sign_in(email=email, password=password, client_ip=client_ip)


def _locked(merchant: Merchant) -> Merchant:
    return Merchant.objects.select_for_update().get(pk=merchant.pk)


def _staff_record(merchant: Merchant, action: str, actor: Actor, **changes) -> None:
    audit_record(
        merchant=merchant,
        action=action,
        actor=actor,
        object_type="merchant",
        object_id=merchant.public_id,
        changes=changes,
    )


def merchant_approve(*, merchant: Merchant, actor: Actor = SYSTEM) -> Merchant:
    """Pending or suspended -> active. Safe to re-run: the e-mail goes out once."""
    with transaction.atomic():
        merchant = _locked(merchant)
        before = merchant.status
        now = timezone.now()
        fields = []
        if merchant.approval_email_sent_at is None:
            merchant.approval_email_sent_at = now
            fields.append("approval_email_sent_at")
            _email(emails.send_approved, merchant, merchant_id=merchant.public_id)
        if merchant.status != Merchant.Status.ACTIVE:
            merchant.approved_at = merchant.approved_at or now
            merchant.suspended_at = None
            fields += ["approved_at", "suspended_at"]
            merchant.transition_to(Merchant.Status.ACTIVE, at=now, update_fields=fields)
        elif fields:
            merchant.save(update_fields=[*fields, "updated_at"])
        if before != merchant.status:
            _staff_record(
                merchant, "merchant.approved", actor, status=[before, merchant.status]
            )
    return merchant


def merchant_set_api_access(
    *, merchant: Merchant, enabled: bool, actor: Actor = SYSTEM
) -> Merchant:
    with transaction.atomic():
        merchant = _locked(merchant)
        if merchant.api_access_enabled == enabled:
            return merchant
        merchant.api_access_enabled = enabled
        merchant.save(update_fields=["api_access_enabled", "updated_at"])
        action = "enabled" if enabled else "disabled"
        _staff_record(
            merchant,
            f"merchant.api_access_{action}",
            actor,
            api_access_enabled=[not enabled, enabled],
        )
        if enabled:
            _email(emails.send_api_access_enabled, merchant)
    return merchant


def merchant_suspend(*, merchant: Merchant, actor: Actor = SYSTEM) -> Merchant:
    """Stops all API use (403) without deleting anything."""
    with transaction.atomic():
        merchant = _locked(merchant)
        if merchant.status == Merchant.Status.SUSPENDED:
            return merchant
        before = merchant.status
        merchant.transition_to(Merchant.Status.SUSPENDED)
        _staff_record(
            merchant, "merchant.suspended", actor, status=[before, merchant.status]
        )
        _email(emails.send_suspended, merchant)
    return merchant


def merchant_set_rate_plan(
    *, merchant: Merchant, rate_plan: str, actor: Actor = SYSTEM
) -> Merchant:
    if rate_plan not in Merchant.RatePlan.values:
        raise ValueError(f"unknown rate plan {rate_plan!r}")
    with transaction.atomic():
        merchant = _locked(merchant)
        if merchant.rate_plan == rate_plan:
            return merchant
        before = merchant.rate_plan
        merchant.rate_plan = rate_plan
        merchant.save(update_fields=["rate_plan", "updated_at"])
        _staff_record(
            merchant, "merchant.rate_plan_changed", actor, rate_plan=[before, rate_plan]
        )
    return merchant


def merchant_staff_edit(*, merchant: Merchant, changes: dict, actor: Actor) -> None:
    """Record what staff changed on the admin's form (saved by the admin), in
    the admin's transaction."""
    if changes:
        _staff_record(merchant, "merchant.updated_by_staff", actor, **changes)


# What the test side copies of its live row when it is made (DESIGN section
# 21): the business, its plan rules and its legal details, so that a test
# checkout shows what a live one would. Kept alike afterwards by
# `merchant_update_settings`; the webhook and the payout account are each
# side's own.
TEST_SIDE_COPIES = (
    "email",
    "business_name",
    "business_url",
    "rate_plan",
    *PLAN_SETTINGS,
    *LEGAL_SETTINGS,
)


def test_side_for(merchant: Merchant) -> Merchant:
    """The account's test side, made the first time it is needed (the first
    test key, the dashboard's switch), under the live row's lock so that two
    first uses make one."""
    found = selectors.test_side_of(merchant)
    if found is not None:
        return found
    with transaction.atomic():
        account = _locked(merchant.account)
        found = selectors.test_side_of(account)
        if found is not None:
            return found
        return Merchant.objects.create(
            public_id=f"{account.public_id}{TEST_SIDE_SUFFIX}",
            livemode=False,
            live_account=account,
            status=Merchant.Status.ACTIVE,
            api_access_enabled=True,
            approved_at=account.created_at,
            **{name: getattr(account, name) for name in TEST_SIDE_COPIES},
        )


def api_key_rotate(
    *,
    merchant: Merchant,
    name: str = "",
    mode: str = "live",
    actor: Actor = SYSTEM,
) -> tuple[ApiKey, str]:
    """Revoke the side's key in use (if any) and issue a new one, in one
    transaction. `mode` "live" (a `service_live_sk_` key: the account must be
    approved and have API access) or "test" (`service_test_sk_`, on the test
    side: any account not suspended, pending included, DESIGN section 21).

    Returns the new key and its plaintext; the plaintext is never stored and this
    is the only place it exists. The side's row lock serialises two rotations, and
    the partial unique index guarantees one key in use per side whatever happens.
    """
    account = merchant.account
    side = account if mode == "live" else test_side_for(account)
    with transaction.atomic(durable=True):
        side = _locked(side)
        if not side.is_active:
            raise MerchantNotActive()
        if not side.api_access_enabled:
            raise ApiAccessDisabled()
        now = timezone.now()
        previous = selectors.live_api_key_of(side)
        ApiKey.objects.filter(merchant=side, revoked_at__isnull=True).update(
            revoked_at=now
        )
        secret = secrets.token_urlsafe(32)
        plaintext = f"{API_KEY_PREFIXES[side.livemode]}{secret}"
        key = ApiKey.objects.create(
            merchant=side,
            name=name.strip(),
            key_hash=hash_api_key(plaintext),
            display_prefix=secret[:4],
            livemode=side.livemode,
        )
        audit_record(
            merchant=side,
            action="api_key.rotated" if previous else "api_key.created",
            actor=actor,
            object_type="api_key",
            object_id=key.masked_prefix,
            changes={
                "key": [previous.masked_prefix if previous else None, key.masked_prefix]
            },
        )
    return key, plaintext


PASSWORD_RESETS_PER_HOUR = 3


def merchant_password_reset_send(*, email: str) -> None:
    """E-mail a reset link when `email` signs in as a member.

    Says nothing either way, so the form cannot tell which addresses have accounts;
    at most PASSWORD_RESETS_PER_HOUR e-mails per address, so it cannot be used to
    flood an inbox.
    """
    member = team_selectors.member_by_email(email)
    if member is None:
        return
    window = ratelimit.hit(
        f"password-reset:{MEMBERS.name}:{member.merchant_id}:{member.pk}",
        limit=PASSWORD_RESETS_PER_HOUR,
        window_seconds=3600,
    )
    if window.exceeded:
        return
    _email(emails.send_password_reset, member, link=password_reset_link(member))
