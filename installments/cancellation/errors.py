"""Errors of cancelling a plan."""

from config.api.errors import DomainError


class PlanNotCancellable(DomainError):
    code = "plan_not_cancellable"
    http_status = 409
    message = (
        "Only an active or defaulted plan can be cancelled, and not while one of "
        "its installments is being charged."
    )
