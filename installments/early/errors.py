"""Errors of paying early."""

from config.api.errors import DomainError, NotFound


class InstallmentNotPayable(DomainError):
    code = "installment_not_payable"
    http_status = 409
    message = "This installment is not unpaid: there is nothing to pay on it now."


class NoPaymentMethod(DomainError):
    code = "no_payment_method"
    http_status = 422
    message = (
        "You have no active payment method to pay with: add a card or a bank "
        "account first, or name one with payment_method_id."
    )


class EarlyPaymentNotFound(NotFound):
    message = "This plan has no payment with this id."


class PaymentNotPending(DomainError):
    """A sandbox completion or expiry of a payment that is no longer pending."""

    code = "payment_not_pending"
    http_status = 409
    message = "This payment is no longer pending: it was paid, declined or expired."
