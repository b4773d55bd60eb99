"""Errors of rescheduling an installment."""

from config.api.errors import DomainError


class RescheduleNotAllowed(DomainError):
    code = "reschedule_not_allowed"
    http_status = 422
    message = "This installment's due date cannot be moved to that date."


class NoticeTooShort(DomainError):
    """A merchant's move to a date less than `rules.NOTICE_DAYS` days away."""

    code = "notice_too_short"
    http_status = 422
    message = "A due date you move must be at least 14 days from today."
