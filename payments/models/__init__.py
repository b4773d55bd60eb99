"""Models of the payments app, one module per concern, all importable from here."""

from .customers import NEW_CUSTOMER_SCORE, Customer, new_customer_id
from .inbound import InboundRequest, ProcessorEvent
from .ledger import LedgerLine, LedgerTransaction
from .methods import (
    BankMandate,
    CardSetup,
    PaymentMethod,
    new_payment_method_id,
    secret_digest,
)
from .payouts import IllegalPayoutTransition, Payout, PayoutRecipient
from .records import ProcessorCharge, ProcessorRefund
from .sandbox import (
    SandboxAuthorization,
    SandboxRecipient,
    SandboxRefund,
    SandboxTransaction,
    SandboxTransfer,
)

__all__ = [
    "NEW_CUSTOMER_SCORE",
    "BankMandate",
    "CardSetup",
    "Customer",
    "InboundRequest",
    "LedgerLine",
    "LedgerTransaction",
    "IllegalPayoutTransition",
    "PaymentMethod",
    "Payout",
    "PayoutRecipient",
    "ProcessorCharge",
    "ProcessorEvent",
    "ProcessorRefund",
    "SandboxAuthorization",
    "SandboxRecipient",
    "SandboxRefund",
    "SandboxTransaction",
    "SandboxTransfer",
    "new_customer_id",
    "new_payment_method_id",
    "secret_digest",
]
