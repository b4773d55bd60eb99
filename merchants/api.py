"""HTTP in/out for endpoints 1, 7, 8 and merchant login."""

from rest_framework.views import APIView

from config.api import responses
from config.api.auth import ROLE_MERCHANT, issue_tokens
from config.api.login_guard import client_ip
from config.api.pagination import paginated
from config.api.permissions import accepts

from . import account_settings, selectors, services
from .audit.actors import actor_from_request, member_actor
from .audit.services import audit_record
from .authentication import resolve_merchant
from .errors import LiveModeForbidden, TwoFactorRequired
from .serializers import (
    LoginInput,
    LoginMfaInput,
    RegisterInput,
    RotateKeyInput,
    SettingsInput,
    merchant_output,
    revoked_key_output,
    settings_output,
)
from .team import two_factor
from .team.permissions import require_fresh_code, role_needs
from .team.services import require


class MerchantRegisterApi(APIView):
    authentication_classes = []

    def post(self, request):
        values = RegisterInput.validated(request.data)
        merchant = services.merchant_register(**values, client_ip=client_ip(request))
        return responses.created(merchant_output(merchant))


class MerchantLoginApi(APIView):
    authentication_classes = []

    def post(self, request):
        values = LoginInput.validated(request.data)
        member = services.merchant_login(**values, client_ip=client_ip(request))
        if member.has_two_factor:
            # No tokens yet: the code goes to /login/mfa with this.
            token = two_factor.mfa_token_issue(member)
            return responses.no_store(
                responses.ok({"mfa_required": True, "mfa_token": token})
            )
        if two_factor.enrolment_required(member):
            raise TwoFactorRequired()
        return _tokens(request, member, code_verified=False)


def _tokens(request, member, *, code_verified: bool):
    """The JWTs of a sign-in, recorded in the audit log (the sign-in services
    have no transaction of their own: the row follows them)."""
    tokens = issue_tokens(
        role=ROLE_MERCHANT, account=member, code_verified=code_verified
    )
    audit_record(
        merchant=member.merchant,
        action="signed_in",
        actor=member_actor(member, request),
        object_type="api",
    )
    return responses.no_store(
        responses.ok({**tokens, "merchant_id": member.merchant.public_id})
    )


class MerchantLoginMfaApi(APIView):
    """The second step of a sign-in with two-factor sign-in: the `mfa_token`
    of the password step (5 minutes) and a code, under the sign-in's
    throttles."""

    authentication_classes = []

    def post(self, request):
        values = LoginMfaInput.validated(request.data)
        member = two_factor.sign_in_code(**values, client_ip=client_ip(request))
        return _tokens(request, member, code_verified=True)


class ApiKeyRotateApi(APIView):
    permission_classes = [accepts("api_key", "merchant_jwt"), role_needs("keys")]

    def post(self, request, merchant_id):
        # The credential checks come before the body's (docs/api.md), but which
        # ones depends on the side asked for: a test key is open to an account
        # still pending approval, a live one needs approval and API access.
        test = isinstance(request.data, dict) and request.data.get("mode") == "test"
        merchant = resolve_merchant(
            request, merchant_id, require_api_access=not test, pending_ok=test
        )
        require_fresh_code(request)
        values = RotateKeyInput.validated(request.data)
        if values["mode"] == "live" and not merchant.livemode:
            # A test key opens test data only: were it to make a live key, a
            # leaked test key would be a leaked live one.
            raise LiveModeForbidden()
        key, plaintext = services.api_key_rotate(
            merchant=merchant,
            name=values["name"],
            mode=values["mode"],
            actor=actor_from_request(request),
        )
        return responses.no_store(
            responses.created(
                {"apiKey": plaintext, "mode": values["mode"], "livemode": key.livemode}
            )
        )


class ApiKeyHistoryApi(APIView):
    permission_classes = [accepts("api_key", "merchant_jwt"), role_needs("keys")]

    def get(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
        return paginated(
            request, selectors.revoked_account_api_keys(merchant), revoked_key_output
        )


WEBHOOK_SETTINGS = frozenset(
    {"webhook_url", "webhook_secret", "test_webhook_url", "test_webhook_secret"}
)


def settings_permissions(data) -> list[str]:
    """What a settings change needs, by the fields it names."""
    names = set(data) if isinstance(data, dict) else set()
    needed = []
    if names & WEBHOOK_SETTINGS:
        needed.append("webhooks")
    if names - WEBHOOK_SETTINGS or not names:
        needed.append("settings")
    return needed


class MerchantSettingsApi(APIView):
    """`GET`/`PATCH /api/v1/merchant/{merchant_id}/settings` (DESIGN section 4).
    A member reads them with `view`; a change of the webhook's URL or secret
    needs `webhooks`, of anything else `settings` (each field its own)."""

    permission_classes = [accepts("merchant_jwt"), role_needs("view")]

    def get(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
        return responses.ok(settings_output(merchant))

    def patch(self, request, merchant_id):
        merchant = resolve_merchant(request, merchant_id)
        needed = settings_permissions(request.data)
        for permission in needed:
            require(request.user.member, permission)
        if "webhooks" in needed:
            require_fresh_code(request)
        values = SettingsInput.validated(request.data)
        merchant = account_settings.merchant_update_settings(
            merchant=merchant, actor=actor_from_request(request), **values
        )
        return responses.ok(settings_output(merchant))
