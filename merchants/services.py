"""Merchant use-cases: registration, approval, API access, suspension, API keys,
settings and passwords."""

import secrets
from functools import partial

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from config.api import login_guard, ratelimit
from config.api.passwords import validate_new_password

from . import emails, selectors
from .errors import ApiAccessDisabled, EmailAlreadyRegistered, MerchantNotActive
from .models import API_KEY_PREFIX, LEGAL_SETTINGS, ApiKey, Merchant, hash_api_key
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


def merchant_approve(*, merchant: Merchant) -> Merchant:
    """Pending or suspended -> active. Safe to re-run: the e-mail goes out once."""
    with transaction.atomic():
        merchant = _locked(merchant)
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
    return merchant


def merchant_set_api_access(*, merchant: Merchant, enabled: bool) -> Merchant:
    with transaction.atomic():
        merchant = _locked(merchant)
        if merchant.api_access_enabled == enabled:
            return merchant
        merchant.api_access_enabled = enabled
        merchant.save(update_fields=["api_access_enabled", "updated_at"])
        if enabled:
            _email(emails.send_api_access_enabled, merchant)
    return merchant


def merchant_suspend(*, merchant: Merchant) -> Merchant:
    """Stops all API use (403) without deleting anything."""
    with transaction.atomic():
        merchant = _locked(merchant)
        if merchant.status == Merchant.Status.SUSPENDED:
            return merchant
        merchant.transition_to(Merchant.Status.SUSPENDED)
        _email(emails.send_suspended, merchant)
    return merchant


def merchant_set_rate_plan(*, merchant: Merchant, rate_plan: str) -> Merchant:
    if rate_plan not in Merchant.RatePlan.values:
        raise ValueError(f"unknown rate plan {rate_plan!r}")
    Merchant.objects.filter(pk=merchant.pk).update(
        rate_plan=rate_plan, updated_at=timezone.now()
    )
    merchant.refresh_from_db()
    return merchant


def api_key_rotate(*, merchant: Merchant, name: str = "") -> tuple[ApiKey, str]:
    """Revoke the live key (if any) and issue a new one, in one transaction.

    Returns the new key and its plaintext; the plaintext is never stored and this
    is the only place it exists. The merchant row lock serialises two rotations, and
    the partial unique index guarantees one live key whatever happens.
    """
    with transaction.atomic(durable=True):
        merchant = _locked(merchant)
        if not merchant.is_active:
            raise MerchantNotActive()
        if not merchant.api_access_enabled:
            raise ApiAccessDisabled()
        now = timezone.now()
        ApiKey.objects.filter(merchant=merchant, revoked_at__isnull=True).update(
            revoked_at=now
        )
        secret = secrets.token_urlsafe(32)
        plaintext = f"{API_KEY_PREFIX}{secret}"
        key = ApiKey.objects.create(
            merchant=merchant,
            name=name.strip(),
            key_hash=hash_api_key(plaintext),
            display_prefix=secret[:4],
        )
    return key, plaintext


SETTINGS_FIELDS = (
    "webhook_url",
    "webhook_secret",
    "allowed_schedule_types",
    "min_installments",
    "max_installments",
    "min_deposit_percent",
    "release_rule",
    "partial_collection_min_percent",
    "customer_reschedules_allowed",
    "reschedule_max_days",
    "manual_collection",
    *LEGAL_SETTINGS,
)


def merchant_update_settings(*, merchant: Merchant, **changes) -> Merchant:
    """Change the merchant-editable settings; callers validate each value.

    The installment bounds are checked against the merged result, so a PATCH that
    sends only `max_installments` cannot go below the stored minimum.
    """
    unknown = set(changes) - set(SETTINGS_FIELDS)
    if unknown:
        raise ValueError(f"not merchant settings: {sorted(unknown)}")
    with transaction.atomic():
        merchant = _locked(merchant)
        for name, value in changes.items():
            setattr(merchant, name, value)
        if merchant.min_installments > merchant.max_installments:
            raise ValidationError(
                {
                    "min_installments": [
                        "The minimum number of installments cannot exceed the "
                        f"maximum ({merchant.min_installments} > "
                        f"{merchant.max_installments})."
                    ]
                }
            )
        merchant.save(update_fields=[*changes, "updated_at"])
    return merchant


WEBHOOK_SECRET_PREFIX = "whsec_"


def webhook_secret_regenerate(*, merchant: Merchant) -> tuple[Merchant, str]:
    """Replace the webhook signing secret with a new random one.

    Returns the merchant and the plaintext secret, which the caller shows once; it is
    stored encrypted and never displayed in full again.
    """
    secret = f"{WEBHOOK_SECRET_PREFIX}{secrets.token_urlsafe(32)}"
    merchant = merchant_update_settings(merchant=merchant, webhook_secret=secret)
    return merchant, secret


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
