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
