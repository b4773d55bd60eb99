"""The models of installments, listed where Django looks for them: each is
defined in the subpackage of its feature (the plan and its installments in the
shared core, plans/). Code imports a model from the subpackage that defines it,
never from here."""

from .agreements.models import Agreement
from .deposits.models import DepositAttempt
from .disputes.models import Dispute
from .early.models import EarlyPayment, EarlyPaymentItem
from .notifications.models import Message
from .paylinks.models import PayLink
from .plans.history import InstallmentStatusChange, PaymentPlanStatusChange
from .plans.models import Installment, PaymentPlan
from .plans.purged import PurgedRecord
from .refunds.models import (
    Refund,
    RefundIdempotencyRecord,
    RefundPart,
    RefundReduction,
)
from .reschedules.models import Reschedule

__all__ = [
    "Agreement",
    "DepositAttempt",
    "Dispute",
    "EarlyPayment",
    "EarlyPaymentItem",
    "Installment",
    "InstallmentStatusChange",
    "Message",
    "PaymentPlan",
    "PayLink",
    "PaymentPlanStatusChange",
    "PurgedRecord",
    "Refund",
    "RefundIdempotencyRecord",
    "RefundPart",
    "RefundReduction",
    "Reschedule",
]
