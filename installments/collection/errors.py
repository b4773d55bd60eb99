"""Errors of the sandbox's time travel and clock."""

from config.api.errors import DomainError


class AdvanceDateOutOfRange(DomainError):
    code = "advance_date_out_of_range"
    http_status = 422
    message = (
        "`to` must be a date from today (Lagos time) up to 60 days after the plan's "
        "last due date."
    )
