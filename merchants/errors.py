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


class ApiAccessDisabled(DomainError):
    code = "api_access_disabled"
    http_status = 403
    message = "API access is not enabled for this merchant account."


class EmailAlreadyRegistered(DomainError):
    code = "email_already_registered"
    http_status = 409
    message = "A merchant account with this e-mail address already exists."
