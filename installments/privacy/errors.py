"""Errors of a customer's data requests."""

from config.api.errors import DomainError


class ErasureRefused(DomainError):
    """The reasons (rules.erasure_refusals) are the message."""

    code = "erasure_refused"
    http_status = 409
    message = "Your data cannot be erased yet."
