"""Errors of disputes (docs/errors.md)."""

from config.api.errors import DomainError, NotFound


class DisputeNotFound(NotFound):
    message = "No dispute with this id."


class DisputeNotOpen(DomainError):
    code = "dispute_not_open"
    http_status = 409
    message = (
        "This dispute is no longer waiting for your answer: it was answered, "
        "accepted or resolved."
    )


class DisputeDeadlinePassed(DomainError):
    code = "dispute_deadline_passed"
    http_status = 409
    message = "The deadline to answer this dispute has passed: it is lost."


class PlanNotResumable(DomainError):
    code = "plan_not_resumable"
    http_status = 409
    message = "Only a plan waiting after a dispute it lost can be resumed."
