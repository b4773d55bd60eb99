from config.api.errors import DomainError, NotFound


class InvalidIdempotencyKey(DomainError):
    code = "invalid_idempotency_key"
    http_status = 400
    message = (
        "The Idempotency-Key header must be a UUID version 4 "
        "(e.g. 3f1c9e0a-5b7d-4c2e-9a4f-8d6b2e1c0a7f)."
    )


class OrderAlreadyPaid(DomainError):
    code = "order_already_paid"
    http_status = 409
    message = "This order_reference already has a completed checkout session."


class SessionNotFound(NotFound):
    message = "No checkout session has this token."


class CustomerNotFound(NotFound):
    message = "No customer has this customer_id."


class SessionCompleted(DomainError):
    code = "session_completed"
    http_status = 409
    message = "This checkout session is already completed: the deposit was paid."


class SessionExpired(DomainError):
    code = "session_expired"
    http_status = 409
    message = (
        "This checkout session has expired (sessions live 30 minutes); the merchant "
        "must create a new one."
    )


class PaymentLinkNotFound(NotFound):
    message = "No payment link of yours has this id."
