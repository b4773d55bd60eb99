"""The API-key authentication class and the merchant checks every endpoint runs.

Order of checks (DESIGN section 4): missing/invalid key -> 401; `merchant_id`
unknown -> 404 `merchant_not_found`; `merchant_id` not the credential's merchant ->
403; merchant not active -> 403 `merchant_not_active`; API access disabled -> 403
`api_access_disabled`.
"""

from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication

from config.api.auth import bearer_token
from config.api.permissions import credential_kind
from config.sides import enter_test_side

from . import selectors
from .errors import (
    ApiAccessDisabled,
    MerchantMismatch,
    MerchantNotActive,
    MerchantNotFound,
)
from .models import API_KEY_PREFIXES, Merchant


class ApiKeyAuthentication(BaseAuthentication):
    def authenticate(self, request):
        raw = bearer_token(request)
        if raw is None or not raw.startswith(tuple(API_KEY_PREFIXES.values())):
            return None
        key = selectors.live_api_key(raw)
        if key is None:
            raise exceptions.AuthenticationFailed("Invalid or revoked API key.")
        if not key.livemode:
            # Test data never reaches a live processor, whatever this request
            # goes on to do (config/sides.py).
            enter_test_side()
        return key.merchant, key

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


def resolve_merchant(
    request,
    merchant_id: str | None = None,
    *,
    require_api_access: bool = False,
    pending_ok: bool = False,
) -> Merchant:
    """The merchant a request acts for, after the documented 404/403 checks.

    `merchant_id` is the id named in the path or body (None: the credential's own).
    API-key requests always need API access; merchant-JWT requests only where
    `require_api_access` says so (issuing a live key). `pending_ok` lets an
    account waiting for approval through (not a suspended one): what it asks
    for is on its test side, open from sign-up (issuing a test key).

    A test key's request (DESIGN section 21) names the account's id like a live
    one and acts on the account's test side: the row its key belongs to, which
    is active unless the account is suspended and always has API access.
    """
    principal = request.user
    if (
        merchant_id is not None
        and isinstance(principal, Merchant)
        and principal.api_id == merchant_id
    ):
        # The credential already loaded this merchant: no second lookup.
        merchant = principal
    elif merchant_id is not None:
        merchant = selectors.merchant_by_public_id(merchant_id)
        if merchant is None:
            raise MerchantNotFound()
        if not isinstance(principal, Merchant) or merchant.pk != principal.account.pk:
            raise MerchantMismatch()
    else:
        merchant = principal
    if not merchant.is_active and not (
        pending_ok and merchant.account.status == Merchant.Status.PENDING
    ):
        raise MerchantNotActive()
    needs_access = require_api_access or credential_kind(request) == "api_key"
    if needs_access and not merchant.api_access_enabled:
        raise ApiAccessDisabled()
    return merchant
