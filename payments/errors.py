from config.api.errors import DomainError


class CustomerEmailTaken(DomainError):
    code = "email_already_registered"
    http_status = 409
    message = "A customer account with this e-mail address already exists."
