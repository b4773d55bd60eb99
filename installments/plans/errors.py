"""The errors every feature of installments may raise about a plan or one of
its installments (not found, busy, not collectable, a schedule the rules
refuse); a feature's own errors are in its subpackage's errors.py."""

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


class PlanBusy(DomainError):
    code = "plan_busy"
    http_status = 409
    message = (
        "An installment this refund needs is being charged right now; retry in a "
        "moment, once the charge has settled."
    )


class InstallmentNotFound(NotFound):
    message = "No installment with this id belongs to this plan."
