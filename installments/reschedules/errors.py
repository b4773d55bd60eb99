"""Errors of rescheduling an installment."""

from config.api.errors import DomainError


class RescheduleNotAllowed(DomainError):
    code = "reschedule_not_allowed"
    http_status = 422
    message = "This installment's due date cannot be moved to that date."
