"""Two-factor sign-in (DESIGN section 20, docs/two-factor.md): a TOTP secret
per member, confirmed by a first code before it counts, and 10 single-use
backup codes stored as peppered hashes.

No code works twice: the time step of the last accepted TOTP code is stored on
the member (locked while it is compared), and a code of that step or an
earlier one is refused even inside its 30-second window. Every check of a code
that a stranger could repeat (the sign-in's second step, a fresh code, turning
it off) runs under the sign-in's throttles: a wrong code counts as a failed
sign-in of the account (`config.api.login_guard.second_factor`)."""

import secrets
from datetime import timedelta

import pyotp
import qrcode
import qrcode.image.svg
from django.core import signing
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac

from config.api import login_guard
from config.api.errors import InvalidCredentials

from ..audit.actors import SYSTEM, Actor
from ..audit.services import audit_record
from ..errors import TwoFactorRequired
from ..models import Merchant
from . import selectors
from .models import BackupCode, Member
from .services import MEMBERS, member_audited, require

ISSUER = "Installments"
# A code at most one step (30 s) early or late is accepted: clocks drift.
VALID_WINDOW = 1
BACKUP_CODE_COUNT = 10
_BACKUP_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"
_BACKUP_LENGTH = 10
# Typed codes longer than this are no code (and never reach a hash).
CODE_MAX_LENGTH = 32
MFA_TOKEN_LIFETIME = timedelta(minutes=5)
FRESH_CODE_LIFETIME = timedelta(minutes=10)
_MFA_TOKEN_SALT = "merchants.team.two_factor.mfa_token"
_BACKUP_SALT = "merchants.team.two_factor.backup_code"


def _locked(member: Member) -> Member:
    return (
        Member.objects.select_for_update(of=("self",))
        .select_related("merchant")
        .get(pk=member.pk)
    )


def _normalized(code: str) -> str:
    if not isinstance(code, str) or len(code) > CODE_MAX_LENGTH:
        return ""
    return "".join(code.split()).replace("-", "").lower()


def _backup_hash(code: str) -> str:
    return salted_hmac(_BACKUP_SALT, code, algorithm="sha256").hexdigest()


def provisioning_uri(member: Member) -> str:
    """The `otpauth://` address an authenticator app reads from the QR code."""
    return pyotp.TOTP(member.totp_secret).provisioning_uri(
        name=member.email, issuer_name=ISSUER
    )


def qr_code_svg(text: str) -> str:
    """`text` as an inline SVG QR code: drawn here, no image is fetched."""
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage)
    return image.to_string(encoding="unicode")


def _accept_totp(member: Member, code: str) -> bool:
    """Whether `code` is the TOTP code of a step within the window and after
    the last one accepted; moves `totp_last_step` on (the caller saves)."""
    if len(code) != 6 or not code.isdigit() or not member.totp_secret:
        return False
    totp = pyotp.TOTP(member.totp_secret)
    now_step = totp.timecode(timezone.now())
    for step in range(now_step - VALID_WINDOW, now_step + VALID_WINDOW + 1):
        if member.totp_last_step is not None and step <= member.totp_last_step:
            continue
        if secrets.compare_digest(totp.generate_otp(step), code):
            member.totp_last_step = step
            return True
    return False


def _new_backup_codes(member: Member) -> list[str]:
    """Replace the member's backup codes with 10 new ones (shown once)."""
    member.backup_codes.all().delete()
    codes = [
        "".join(secrets.choice(_BACKUP_ALPHABET) for _ in range(_BACKUP_LENGTH))
        for _ in range(BACKUP_CODE_COUNT)
    ]
    BackupCode.objects.bulk_create(
        BackupCode(member=member, code_hash=_backup_hash(code)) for code in codes
    )
    return [f"{code[:5]}-{code[5:]}" for code in codes]


def enrol_start(*, member: Member) -> Member:
    """A new secret for the member to scan: it counts once a code confirms it
    (`enrol_confirm`). A member who has two-factor sign-in keeps it."""
    with transaction.atomic():
        member = _locked(member)
        if not member.has_two_factor:
            member.totp_secret = pyotp.random_base32()
            member.totp_last_step = None
            member.save(update_fields=["totp_secret", "totp_last_step", "updated_at"])
    return member


def enrol_confirm(
    *, member: Member, code: str, actor: Actor = SYSTEM
) -> tuple[Member, list[str]]:
    """Turn two-factor sign-in on with a first code of the new secret; the 10
    backup codes are returned, to be shown once."""
    with transaction.atomic():
        member = _locked(member)
        if member.has_two_factor or not _accept_totp(member, _normalized(code)):
            raise InvalidCredentials(
                "The code is incorrect: enter the 6-digit code your authenticator "
                "app shows now for this account."
            )
        member.totp_enabled_at = timezone.now()
        member.save(update_fields=["totp_enabled_at", "totp_last_step", "updated_at"])
        codes = _new_backup_codes(member)
        member_audited(
            member, "two_factor.enabled", actor, changes={"two_factor": [False, True]}
        )
    return member, codes


def verify(*, member: Member, code: str) -> bool:
    """Whether `code` is a current TOTP code never used before or an unused
    backup code of the member (which it uses up)."""
    code = _normalized(code)
    if not code:
        return False
    with transaction.atomic():
        member = _locked(member)
        if not member.has_two_factor:
            return False
        if _accept_totp(member, code):
            member.save(update_fields=["totp_last_step", "updated_at"])
            return True
        used = BackupCode.objects.filter(
            member=member, code_hash=_backup_hash(code), used_at__isnull=True
        ).update(used_at=timezone.now())
        return used == 1


def code_check(*, member: Member, code: str, client_ip: str) -> None:
    """InvalidCredentials (counted as a failed sign-in) unless `code` verifies;
    RateLimited while the account or the address is locked out."""
    login_guard.second_factor(
        kind=MEMBERS.name,
        email=member.email,
        client_ip=client_ip,
        verify=lambda: verify(member=member, code=code),
    )


def disable(
    *, member: Member, code: str, client_ip: str, actor: Actor = SYSTEM
) -> Member:
    """Turn two-factor sign-in off with a current code; refused while the
    member's team requires it."""
    if member.merchant.require_two_factor:
        raise TwoFactorRequired(
            "Your team requires two-factor sign-in: it cannot be turned off while "
            "an owner keeps that switch on."
        )
    code_check(member=member, code=code, client_ip=client_ip)
    with transaction.atomic():
        member = _locked(member)
        member.totp_secret = ""
        member.totp_enabled_at = None
        member.totp_last_step = None
        member.save(
            update_fields=[
                "totp_secret",
                "totp_enabled_at",
                "totp_last_step",
                "updated_at",
            ]
        )
        member.backup_codes.all().delete()
        member_audited(
            member, "two_factor.disabled", actor, changes={"two_factor": [True, False]}
        )
    return member


def backup_codes_regenerate(
    *, member: Member, code: str, client_ip: str, actor: Actor = SYSTEM
) -> list[str]:
    """10 new backup codes (the old ones stop working), with a current code."""
    code_check(member=member, code=code, client_ip=client_ip)
    with transaction.atomic():
        member = _locked(member)
        codes = _new_backup_codes(member)
        member_audited(member, "two_factor.backup_codes_renewed", actor, changes={})
    return codes


def backup_codes_left(member: Member) -> int:
    return member.backup_codes.filter(used_at__isnull=True).count()


def require_two_factor_set(
    *, by: Member, required: bool, actor: Actor = SYSTEM
) -> Merchant:
    """The owners' switch: every member signs in with a code. An owner turns
    it on only with two-factor sign-in of their own."""
    require(by, "ownership")
    if required and not by.has_two_factor:
        raise TwoFactorRequired(
            "Set up two-factor sign-in for yourself before requiring it of your team."
        )
    with transaction.atomic():
        merchant = Merchant.objects.select_for_update().get(pk=by.merchant_id)
        before = merchant.require_two_factor
        merchant.require_two_factor = required
        merchant.save(update_fields=["require_two_factor", "updated_at"])
        if before != required:
            audit_record(
                merchant=merchant,
                action="two_factor.team_required",
                actor=actor,
                object_type="merchant",
                object_id=merchant.public_id,
                changes={"require_two_factor": [before, required]},
            )
    return merchant


def enrolment_required(member: Member) -> bool:
    """The member's team requires two-factor sign-in and they have none yet."""
    return member.merchant.require_two_factor and not member.has_two_factor


def mfa_token_issue(member: Member) -> str:
    """What the password step hands to the code step: names the member and its
    credential version (a password or role change ends it), for 5 minutes."""
    return signing.dumps(
        {"m": member.public_id, "cv": member.credential_version},
        salt=_MFA_TOKEN_SALT,
        compress=True,
    )


def mfa_token_member(token: str) -> Member | None:
    """The member an unexpired, unchanged `mfa_token` names, or None."""
    if not isinstance(token, str) or len(token) > 500:
        return None
    try:
        claims = signing.loads(
            token,
            salt=_MFA_TOKEN_SALT,
            max_age=MFA_TOKEN_LIFETIME.total_seconds(),
        )
        member = selectors.member_by_public_id(str(claims["m"]))
    except (signing.BadSignature, KeyError, TypeError):
        return None
    if member is None or member.credential_version != claims.get("cv"):
        return None
    return member


def sign_in_code(*, mfa_token: str, code: str, client_ip: str) -> Member:
    """The second step of a sign-in: the member the password step named, once
    its code verifies."""
    member = mfa_token_member(mfa_token)
    if member is None:
        raise InvalidCredentials(
            "This sign-in has expired (the code step lasts 5 minutes) or your "
            "password changed since: sign in with your password again."
        )
    code_check(member=member, code=code, client_ip=client_ip)
    return member


def code_is_fresh(member: Member, code_at: int | None) -> bool:
    """Whether a change that needs a recent code may go ahead: a member without
    two-factor sign-in is not asked; one with it needs a code verified (at
    `code_at`, a Unix time) in the last 10 minutes."""
    if not member.has_two_factor:
        return True
    if code_at is None:
        return False
    age = timezone.now().timestamp() - code_at
    return 0 <= age <= FRESH_CODE_LIFETIME.total_seconds()
