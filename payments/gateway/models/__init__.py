"""Models of the gateway: what moved through the processor, the processor's
callbacks, and the sandbox processor's own state."""

from .inbound import InboundRequest, ProcessorEvent
from .records import ProcessorCharge, ProcessorRefund
from .sandbox import (
    SandboxAuthorization,
    SandboxDispute,
    SandboxRecipient,
    SandboxRefund,
    SandboxTransaction,
    SandboxTransfer,
)

__all__ = [
    "InboundRequest",
    "ProcessorCharge",
    "ProcessorEvent",
    "ProcessorRefund",
    "SandboxAuthorization",
    "SandboxDispute",
    "SandboxRecipient",
    "SandboxRefund",
    "SandboxTransaction",
    "SandboxTransfer",
]
