from config.api.errors import DomainError, NotFound


class CustomerNotEligible(DomainError):
    code = "customer_not_eligible"
    http_status = 422
    message = "The customer's score is below 300: no installment plan can be offered."


class InvalidInstallmentCount(DomainError):
    code = "invalid_installment_count"
    http_status = 422
    message = "installment_count is outside the bounds allowed for this plan."


class ScheduleTypeNotAllowed(DomainError):
    code = "schedule_type_not_allowed"
    http_status = 422
    message = "The merchant does not offer this schedule_type."


class InvalidPreferredDay(DomainError):
    code = "invalid_preferred_day"
    http_status = 400
    message = (
        'preferred_day must be a day of the month from 1 to 28, or "last_working_day".'
    )


class PlanNotFound(NotFound):
    message = "No payment plan with this id is yours to read."


class PaymentInProgress(DomainError):
    code = "payment_in_progress"
    http_status = 409
    message = (
        "A deposit payment for this checkout is already being processed; check the "
        "session again in a moment instead of paying a second time."
    )


class PlanNotCollectable(DomainError):
    code = "plan_not_collectable"
    http_status = 409
    message = (
        "This plan has nothing left to collect: every installment is paid, or the "
        "plan is not active."
    )


class RefundExceedsRefundable(DomainError):
    code = "refund_exceeds_refundable"
    http_status = 422
    message = (
        "The amount is more than what is left to refund on this plan (its total "
        "less what was refunded so far, of which only what is unpaid or was "
        "collected can be refunded)."
    )


class PlanBusy(DomainError):
    code = "plan_busy"
    http_status = 409
    message = (
        "An installment this refund needs is being charged right now; retry in a "
        "moment, once the charge has settled."
    )


class PlanNotCancellable(DomainError):
    code = "plan_not_cancellable"
    http_status = 409
    message = (
        "Only an active or defaulted plan can be cancelled, and not while one of "
        "its installments is being charged."
    )


class InstallmentNotFound(NotFound):
    message = "No installment with this id belongs to this plan."


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


class AdvanceDateOutOfRange(DomainError):
    code = "advance_date_out_of_range"
    http_status = 422
    message = (
        "`to` must be a date from today (Lagos time) up to 60 days after the plan's "
        "last due date."
    )


class RescheduleNotAllowed(DomainError):
    code = "reschedule_not_allowed"
    http_status = 422
    message = "This installment's due date cannot be moved to that date."
