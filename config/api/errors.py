"""The domain error every app's `errors.py` subclasses (DESIGN section 3).

A DomainError is a business-rule failure: it is answered with the soft shape
`{"ok": false, "error": {"code", "message"}}` and its HTTP status. The codes form a
closed list documented in docs/errors.md; tests/config/test_error_codes.py keeps the
two in step.
"""


class DomainError(Exception):
    code = "domain_error"
    http_status = 400
    message = "The request could not be completed."

    def __init__(self, message: str | None = None, *, headers: dict | None = None):
        self.message = message or self.message
        self.headers = headers or {}
        super().__init__(self.message)


class InvalidRequest(DomainError):
    code = "invalid_request"
    http_status = 400


class NotFound(DomainError):
    code = "not_found"
    http_status = 404
    message = "The resource does not exist."


class RateLimited(DomainError):
    code = "rate_limited"
    http_status = 429
    message = "Too many requests; retry after the number of seconds in Retry-After."


class UnsupportedCurrency(DomainError):
    code = "unsupported_currency"
    http_status = 400
    message = "Only NGN is supported."


class AmountOutOfRange(DomainError):
    code = "amount_out_of_range"
    http_status = 400
    message = "amount must be between 10000 and 1000000000 kobo."


class InvalidCredentials(DomainError):
    code = "invalid_credentials"
    http_status = 401
    message = "The e-mail address or password is incorrect."


class ServiceUnavailable(DomainError):
    code = "service_unavailable"
    http_status = 503
    message = (
        "The service is temporarily unavailable; retry after the number of seconds "
        "in Retry-After."
    )


class InvalidIdempotencyKey(DomainError):
    code = "invalid_idempotency_key"
    http_status = 400
    message = (
        "The Idempotency-Key header must be a UUID version 4 "
        "(e.g. 3f1c9e0a-5b7d-4c2e-9a4f-8d6b2e1c0a7f)."
    )
