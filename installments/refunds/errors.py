"""Errors of refunding a plan."""

from config.api.errors import DomainError


class RefundExceedsRefundable(DomainError):
    code = "refund_exceeds_refundable"
    http_status = 422
    message = (
        "The amount is more than what is left to refund on this plan (its total "
        "less what was refunded so far, of which only what is unpaid or was "
        "collected can be refunded)."
    )
