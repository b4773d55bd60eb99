from config.api.errors import DomainError, NotFound


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


class PaymentMethodRequired(DomainError):
    code = "payment_method_required"
    http_status = 422
    message = (
        "Choose a card or bank account: your installments are collected from it "
        "automatically, even when you pay the deposit by bank transfer or USSD."
    )


class TermsNotAccepted(DomainError):
    code = "terms_not_accepted"
    http_status = 422
    message = (
        "Show the customer the key facts of this checkout (GET "
        "/api/v1/checkout/sessions/<token>/key-facts) and send terms_accepted: "
        "true once they agree. Nothing was charged."
    )
