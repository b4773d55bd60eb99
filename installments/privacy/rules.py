"""When a customer's data may not be erased yet (DESIGN section 18): while
anything they owe or are owed is still open. One function per rule, each
giving the reason or None; the list is open."""

from django.db.models import Q

from payments.customers.models import Customer

from ..deposits.models import DepositAttempt
from ..disputes.models import Dispute
from ..early.models import EarlyPayment
from ..plans.models import PaymentPlan
from ..refunds.models import Refund, RefundPart

PlanStatus = PaymentPlan.Status


def plan_open(customer: Customer) -> str | None:
    """An active plan is money still owed; a defaulted one too (the merchant
    may still collect it), and a disputed one (its merchant decides whether to
    collect again, DESIGN section 19)."""
    open_plans = PaymentPlan.objects.filter(
        customer=customer,
        status__in=[PlanStatus.ACTIVE, PlanStatus.DEFAULTED, PlanStatus.DISPUTED],
    )
    if open_plans.exists():
        ids = ", ".join(open_plans.values_list("public_id", flat=True)[:5])
        return (
            f"A payment plan is still open ({ids}): your data can be erased once "
            "it is paid off or cancelled."
        )
    return None


def payment_in_flight(customer: Customer) -> str | None:
    """A deposit or an early payment the processor has not settled yet (a
    pending plan without one is an abandoned checkout and does not stop it)."""
    processing = Q(customer=customer, status="processing")
    if (
        DepositAttempt.objects.filter(processing).exists()
        or EarlyPayment.objects.filter(processing).exists()
    ):
        return (
            "A payment of yours is still being processed: try again once it has "
            "succeeded or failed."
        )
    return None


def refund_open(customer: Customer) -> str | None:
    plans = PaymentPlan.objects.filter(customer=customer)
    if (
        Refund.objects.filter(plan__in=plans, status=Refund.Status.PENDING).exists()
        or RefundPart.objects.filter(
            refund__plan__in=plans,
            status__in=[RefundPart.Status.REQUESTING, RefundPart.Status.PENDING],
        ).exists()
    ):
        return (
            "A refund to you is not finished yet: your data can be erased once "
            "it has been paid out."
        )
    return None


def dispute_open(customer: Customer) -> str | None:
    """A dispute of one of their payments is a claim still being decided
    (DESIGN section 19): its evidence must stay as it was sent."""
    disputes = Dispute.objects.filter(plan__customer=customer, status__in=Dispute.OPEN)
    if disputes.exists():
        return (
            "A payment of yours is disputed with your bank and not decided yet: "
            "your data can be erased once the dispute is resolved."
        )
    return None


ERASURE_RULES = [plan_open, payment_in_flight, refund_open, dispute_open]


def erasure_refusals(customer: Customer) -> list[str]:
    """Why the customer's data cannot be erased now ([]: it can)."""
    return [reason for rule in ERASURE_RULES if (reason := rule(customer))]
