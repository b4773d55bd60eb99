"""Reminders before each due date, receipts after each collection and
refund, requests to add a payment method after a hard decline (DESIGN
section 15), and what a collection pass did (a failed attempt, a part
collected, a default, told to the merchant too), by e-mail and by SMS (DESIGN
section 14; docs/payment-plans.md).

Every message is a `Message` row, unique per (kind, subject, channel), inserted
before it is sent: a rerun, or a second run at the same moment, finds the row
taken and sends nothing. A message whose sending was cut short stays `sending`
until its sender's lease runs out, then the sweep sends it (at least once; only
the one a sender died on between the provider's answer and its record goes
twice: docs/operations.md, "Customer messages").

    services.reminders_send(day)         the daily reminders (tasks.py)
    services.collection_receipts_send()  the sweep over recent collections
    services.refund_receipt_send(refund) one refund's receipt (recorded in the
                                         refund's transaction, sent after it)
    services.messages_send_due()         the sweep: messages no sender holds
    services.action_required_notices_send()  the requests to add a payment
                                         method after a hard decline
    services.messages_send_on_commit(outgoing)  messages recorded in the
                                         caller's transaction (a refund's
                                         receipt, a collection pass's
                                         outcomes), sent after its commit
"""
