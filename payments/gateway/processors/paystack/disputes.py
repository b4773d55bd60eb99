"""Paystack's disputes, as a part of `PaystackProcessor` (reference/paystack.md,
"Disputes"). Being written: every call refuses until then."""

from ...errors import ProcessorError


class PaystackDisputes:
    def fetch_dispute(self, *, dispute_id):
        raise ProcessorError("Paystack disputes are not wired yet")

    def answer_dispute(self, *, dispute_id, evidence, refund_amount):
        raise ProcessorError("Paystack disputes are not wired yet")

    def accept_dispute(self, *, dispute_id, refund_amount, message):
        raise ProcessorError("Paystack disputes are not wired yet")
