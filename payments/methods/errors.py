"""Domain errors of payment methods (saving a card or a bank mandate, defaults,
deletion). Each code is a row of docs/errors.md."""

from config.api.errors import DomainError


class PaymentMethodNotFound(DomainError):
    code = "payment_method_not_found"
    http_status = 404
    message = "No payment method with this id belongs to you."


class PaymentMethodInactive(DomainError):
    code = "payment_method_inactive"
    http_status = 409
    message = (
        "This payment method was deactivated by the bank or card issuer and can no "
        "longer be charged; add a new one."
    )


class ReferenceNotFound(DomainError):
    code = "reference_not_found"
    http_status = 404
    message = "No card set-up or bank mandate with this reference belongs to you."


class CardNotAuthorized(DomainError):
    code = "card_not_authorized"
    http_status = 409
    message = (
        "The card has not been authorized yet: send the customer to authorization_url "
        "first, then verify after the redirect."
    )


class CardNotReusable(DomainError):
    code = "card_not_reusable"
    http_status = 422
    message = (
        "The card issuer does not allow this card to be charged again later; use "
        "another card or a bank mandate."
    )


class PaymentFailed(DomainError):
    code = "payment_failed"
    http_status = 402
    message = "The payment was declined."


class PaymentPending(DomainError):
    code = "payment_pending"
    http_status = 409
    message = (
        "The bank has not confirmed yet. Wait a minute, then call "
        "bank-mandate/verify with the same reference."
    )


class OtpAttemptsExhausted(DomainError):
    code = "otp_attempts_exhausted"
    http_status = 409
    message = (
        "This mandate reference is dead after 5 wrong OTPs; start again with "
        "initiate-bank-mandate."
    )


class MandateStepInProgress(DomainError):
    code = "mandate_step_in_progress"
    http_status = 409
    message = (
        "Another request for this mandate reference is being checked with the bank "
        "right now; call again in a few seconds with the same reference (once the "
        "mandate is saved, every step answers the saved method)."
    )


class MandateStepMismatch(DomainError):
    code = "mandate_step_mismatch"
    http_status = 409
    message = "This mandate is waiting for another step."


class MandateNotAuthorized(DomainError):
    code = "mandate_not_authorized"
    http_status = 409
    message = (
        "The customer has not authorized the mandate yet: open the url from "
        "initiate-bank-mandate, finish there, then verify."
    )


class MandateClosed(DomainError):
    code = "mandate_closed"
    http_status = 409
    message = (
        "This mandate reference has ended without a saved account; start again "
        "with initiate-bank-mandate."
    )


class UnsupportedAuthorizationStep(DomainError):
    code = "unsupported_authorization_step"
    http_status = 422
    message = (
        "The bank asked for a step this service does not support for mandates "
        "(card PIN or billing address); use another account or a card."
    )


class TermsNotAccepted(DomainError):
    code = "terms_not_accepted"
    http_status = 422
    message = (
        "The customer has not accepted the bank mandate's terms: show them and "
        'send "terms_accepted": true once the customer has ticked the box.'
    )
