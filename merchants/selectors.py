from config.api.ids import row_by_public_id
from config.db.rows import OneRow

from .models import LEGAL_SETTINGS, ApiKey, Merchant, hash_api_key


def merchant_by_public_id(public_id: str) -> Merchant | None:
    return row_by_public_id(Merchant.objects, public_id, "mer")


def merchant_by_email(email: str) -> Merchant | None:
    return Merchant.objects.filter(email__iexact=email.strip()).first()


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
    return ApiKey.objects.filter(merchant=merchant, revoked_at__isnull=True).first()


def missing_legal_settings(merchant: Merchant) -> list[str]:
    """The key facts' details this merchant has not given (DESIGN section 18),
    in the order of `LEGAL_SETTINGS`."""
    return [name for name in LEGAL_SETTINGS if not getattr(merchant, name)]
