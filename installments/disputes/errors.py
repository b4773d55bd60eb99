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


class EvidenceFileInvalid(DomainError):
    """A file of the merchant's evidence the processor would not take: too
    many, too large, or not a PDF, JPEG or PNG by its content."""

    code = "evidence_file_invalid"
    http_status = 422
    message = "Evidence takes up to 5 files, each a PDF, JPEG or PNG of 5 MiB or less."
