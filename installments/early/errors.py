"""Errors of paying early."""

from config.api.errors import DomainError


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
