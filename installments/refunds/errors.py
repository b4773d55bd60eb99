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


class RefundDuringDispute(DomainError):
    code = "refund_during_dispute"
    http_status = 409
    message = (
        "This plan has an open dispute: answer it or accept it (the customer then "
        "gets the money back) before refunding."
    )
