from config.api.errors import DomainError


class MerchantNotFound(DomainError):
    code = "merchant_not_found"
    http_status = 404
    message = "No merchant has this merchant_id."


class MerchantMismatch(DomainError):
    code = "merchant_mismatch"
    http_status = 403
    message = "The credential belongs to another merchant."


class MerchantNotActive(DomainError):
    code = "merchant_not_active"
    http_status = 403
    message = "The merchant account is not active (pending approval or suspended)."


class LiveModeForbidden(DomainError):
    """Live data refused here (DESIGN section 21, docs/test-mode.md): a test
    key asking for a live key, or a live key calling a sandbox endpoint on a
    deployment with a real processor (the sandbox is for test data only
    there, with the message saying so)."""

    code = "live_mode_forbidden"
    http_status = 403
    message = (
        "A test key (service_test_sk_) acts only on test data: use a live key "
        "(service_live_sk_) or the dashboard for this."
    )


class ApiAccessDisabled(DomainError):
    code = "api_access_disabled"
    http_status = 403
    message = "API access is not enabled for this merchant account."


class EmailAlreadyRegistered(DomainError):
    code = "email_already_registered"
    http_status = 409
    message = "A merchant account with this e-mail address already exists."


class ForbiddenForRole(DomainError):
    code = "forbidden_for_role"
    http_status = 403
    message = "Your role in this merchant's team does not allow this."


class MemberAlreadyExists(DomainError):
    code = "member_exists"
    http_status = 409
    message = "This e-mail address already signs in to a merchant account."


class InvitationInvalid(DomainError):
    code = "invitation_invalid"
    http_status = 400
    message = (
        "This invitation link is not valid: it was used, withdrawn, or is more "
        "than 72 hours old. Ask for a new one."
    )


class LastOwner(DomainError):
    code = "last_owner"
    http_status = 409
    message = "A team keeps at least one owner: make another member owner first."


class RefundOverLimit(DomainError):
    code = "refund_over_limit"
    http_status = 403
    message = "The refund is more than your refund limit allows."


class FreshCodeRequired(DomainError):
    code = "fresh_code_required"
    http_status = 403
    message = (
        "This change needs a two-factor code from the last 10 minutes: sign in "
        "again with a code (POST /api/v1/auth/merchant/login, then /login/mfa)."
    )


class TwoFactorRequired(DomainError):
    code = "two_factor_required"
    http_status = 403
    message = (
        "Your team requires two-factor sign-in: set it up on the dashboard's "
        "Security page first."
    )
