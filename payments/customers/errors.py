"""Domain errors of customer accounts; each code is a row of docs/errors.md."""

from config.api.errors import DomainError


class CustomerEmailTaken(DomainError):
    code = "email_already_registered"
    http_status = 409
    message = "A customer account with this e-mail address already exists."


class CustomerNotFound(DomainError):
    code = "customer_not_found"
    http_status = 404
    message = "No customer with this customer_id is yours to act on."


class SignInCodeWrong(DomainError):
    """Signing in by code, on the /account/ pages only (no endpoint answers it):
    the same for an unknown address as for a wrong, used, expired or locked
    code."""

    code = "invalid_credentials"
    http_status = 401
    message = (
        "That code is not right, or it has expired or been used. Check the "
        "latest code we sent, or ask for a new one."
    )
