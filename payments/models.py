"""The models of the one `payments` app, each defined in its domain's
subpackage; imported here so that Django finds them (the app's models module).
Code imports a model from its subpackage (`payments.methods.models`)."""

from .customers.models import Customer, CustomerSignIn, SignInCode
from .gateway.models import (
    InboundRequest,
    ProcessorCharge,
    ProcessorEvent,
    ProcessorRefund,
    SandboxAuthorization,
    SandboxRecipient,
    SandboxRefund,
    SandboxTransaction,
    SandboxTransfer,
)
from .ledger.models import LedgerBalance, LedgerLine, LedgerTransaction
from .methods.models import BankMandate, CardSetup, PaymentMethod
from .payouts.models import Payout, PayoutItem, PayoutRecipient

__all__ = [
    "BankMandate",
    "CardSetup",
    "Customer",
    "InboundRequest",
    "LedgerBalance",
    "LedgerLine",
    "LedgerTransaction",
    "PaymentMethod",
    "Payout",
    "PayoutItem",
    "PayoutRecipient",
    "ProcessorCharge",
    "ProcessorEvent",
    "ProcessorRefund",
    "SandboxAuthorization",
    "SandboxRecipient",
    "SandboxRefund",
    "SandboxTransaction",
    "SandboxTransfer",
    "SignInCode",
    "CustomerSignIn",
]
