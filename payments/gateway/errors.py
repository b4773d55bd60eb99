"""Domain errors of the payment processor.

Each code is a row of docs/errors.md. Processor failures never surface as a 500:
a timeout, a 5xx, a malformed reply or a refusal each become one of these.
"""

from config.api.errors import DomainError, NotFound


class InvalidOtp(DomainError):
    code = "invalid_otp"
    http_status = 400
    message = "The OTP is incorrect."


class ProcessorError(DomainError):
    code = "processor_error"
    http_status = 502
    message = "The payment processor failed to answer properly; try again shortly."


class ProcessorTimeout(DomainError):
    code = "processor_timeout"
    http_status = 504
    message = "The payment processor did not answer in time; try again shortly."


class ProcessorRefused(DomainError):
    """The processor understood the request and said no (its own 4xx)."""

    code = "processor_refused"
    http_status = 422
    message = "The payment processor refused the request."

    def __init__(
        self,
        message: str | None = None,
        *,
        processor_code: str = "",
        processor_message: str = "",
        processor_status: int = 0,
    ):
        super().__init__(message)
        self.processor_code = processor_code
        self.processor_message = processor_message or self.message
        self.processor_status = processor_status


class AccountNotResolved(DomainError):
    code = "account_not_resolved"
    http_status = 422
    message = "The bank could not find an account with this number."


class InvalidSignature(DomainError):
    code = "invalid_signature"
    http_status = 401
    message = "Missing or invalid x-paystack-signature."


# The sandbox's bank transfers and USSD codes (DESIGN section 17): completing or
# expiring one, as the customer's bank and Paystack would take it.


class SandboxChargeNotFound(NotFound):
    message = "The sandbox has no bank transfer or USSD charge with this reference."


class SandboxChargeNotPending(DomainError):
    code = "payment_not_pending"
    http_status = 409
    message = "This bank transfer or USSD payment is no longer pending."


class SandboxChargeExpired(DomainError):
    code = "payment_expired"
    http_status = 409
    message = (
        "This bank transfer or USSD payment expired before the money arrived: "
        "money sent after expiry is not applied (Paystack returns it to the "
        "sender)."
    )


class SandboxAmountMismatch(DomainError):
    code = "amount_mismatch"
    http_status = 422
    message = (
        "A transfer of another amount is refused (Paystack returns it to the "
        "sender): send exactly the amount of the payment."
    )
