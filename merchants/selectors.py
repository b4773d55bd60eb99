from django.db.models import Q

from config.api.ids import row_by_public_id
from config.db.rows import OneRow

from .models import LEGAL_SETTINGS, ApiKey, Merchant, hash_api_key


def merchant_by_public_id(public_id: str) -> Merchant | None:
    """A merchant account by the id merchants know: its live row (the test
    side's id is never shaped like a public id)."""
    return row_by_public_id(Merchant.objects, public_id, "mer")


def merchant_by_email(email: str) -> Merchant | None:
    return Merchant.objects.filter(email__iexact=email.strip(), livemode=True).first()


def test_side_of(merchant: Merchant) -> Merchant | None:
    """The account's test side, None until it is first needed
    (`merchants.services.test_side_for`)."""
    account = merchant.account
    return Merchant.objects.filter(live_account=account).first()


def side_of(merchant: Merchant, livemode: bool) -> Merchant | None:
    """The account's row of that side (None: a test side not made yet)."""
    return merchant.account if livemode else test_side_of(merchant)


# Every API request looks its key up: the SQL is written once (config/db/rows.py).
_LIVE_KEY = OneRow(
    ApiKey, equals=("key_hash",), also="t.revoked_at IS NULL", parent="merchant"
)


def live_api_key(plaintext: str) -> ApiKey | None:
    """The unrevoked key with this plaintext, its merchant loaded."""
    return _LIVE_KEY.first(key_hash=hash_api_key(plaintext))


def revoked_api_keys(merchant: Merchant):
    return ApiKey.objects.filter(merchant=merchant, revoked_at__isnull=False).order_by(
        "-revoked_at", "-id"
    )


def live_api_key_of(merchant: Merchant) -> ApiKey | None:
    """The key in use of this merchant row (so of its side)."""
    return ApiKey.objects.filter(merchant=merchant, revoked_at__isnull=True).first()


def account_api_keys(merchant: Merchant):
    """Every key of the account, both sides, newest first."""
    account = merchant.account
    return ApiKey.objects.filter(
        Q(merchant=account) | Q(merchant__live_account=account)
    )


def revoked_account_api_keys(merchant: Merchant):
    """The account's revoked keys of both sides (each says its `livemode`),
    newest revocation first."""
    return (
        account_api_keys(merchant)
        .filter(revoked_at__isnull=False)
        .order_by("-revoked_at", "-id")
    )


def missing_legal_settings(merchant: Merchant) -> list[str]:
    """The key facts' details this merchant has not given (DESIGN section 18),
    in the order of `LEGAL_SETTINGS`."""
    return [name for name in LEGAL_SETTINGS if not getattr(merchant, name)]
