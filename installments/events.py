"""The payloads of the events plans and installments emit (docs/webhooks.md),
built here only: the deposit, the collection engine and the processor's late
confirmations send the same shapes."""

from typing import TYPE_CHECKING

from . import selectors

if TYPE_CHECKING:
    from .collection.claims import Claim
    from .models import DepositAttempt, Installment, PaymentPlan, Refund

Event = tuple[str, dict]

# An installment collected is announced twice, with the same payload.
INSTALLMENT_PAID = ("payment_plan.installment_paid", "installment.paid")


def plan_data(plan: "PaymentPlan") -> dict:
    return {
        "resourceType": "payment_plan",
        "resourceId": plan.public_id,
        "orderReference": plan.order_reference,
    }


def payment_success(plan: "PaymentPlan", attempt: "DepositAttempt") -> Event:
    """The deposit was collected."""
    return (
        "payment.success",
        {**plan_data(plan), "amount": attempt.amount, "currency": attempt.currency},
    )


def payment_failed(plan: "PaymentPlan", reason: str) -> Event:
    """A deposit or an installment attempt was declined."""
    return ("payment.failed", {**plan_data(plan), "reason": reason})


def debit_scheduled(plan: "PaymentPlan", installment: "Installment") -> Event:
    return (
        "debit.scheduled",
        {
            "resourceType": "installment",
            "resourceId": installment.public_id,
            "paymentPlanId": plan.public_id,
            "orderReference": plan.order_reference,
            "amount": installment.amount,
            "currency": installment.currency,
            "dueDate": installment.due_date.isoformat(),
        },
    )


def goods_release(plan: "PaymentPlan") -> Event:
    return ("goods.release", plan_data(plan))


def installment_paid(claim: "Claim", processor_reference: str) -> list[Event]:
    """An installment collected by the engine (the claim that charged it)."""
    data = {
        "resourceType": "installment",
        "resourceId": claim.public_id,
        "paymentPlanId": claim.plan_public_id,
        "customerId": claim.customer_public_id,
        "orderReference": claim.order_reference,
        "amount": claim.amount,
        "currency": claim.currency,
        "processorReference": processor_reference,
    }
    return [(event_type, data) for event_type in INSTALLMENT_PAID]


def plan_lifecycle_payload(plan: "PaymentPlan") -> dict:
    """What every plan lifecycle event carries (`payment_plan.cancelled`,
    `.completed`, `.defaulted`): the money so far, read from the plan's rows."""
    return {
        **plan_data(plan),
        "amountPaid": selectors.amount_paid(plan),
        "amountRefunded": plan.amount_refunded,
        "amountRemaining": selectors.amount_remaining(plan),
    }


def plan_cancelled(plan: "PaymentPlan") -> Event:
    """Cancelled by its merchant, or by a refund that cancelled every unpaid
    installment."""
    return ("payment_plan.cancelled", plan_lifecycle_payload(plan))


def refund_payload(refund: "Refund") -> dict:
    plan = refund.plan
    return {
        "resourceType": "refund",
        "resourceId": refund.public_id,
        "paymentPlanId": plan.public_id,
        "orderReference": plan.order_reference,
        "amount": refund.amount,
        "currency": refund.currency,
        "reason": refund.reason,
        "status": refund.status,
    }


def refund_created(refund: "Refund") -> Event:
    return ("refund.created", refund_payload(refund))


def refund_settled(refund: "Refund") -> Event:
    """`refund.processed` or `refund.failed`, from the refund's final status."""
    return (f"refund.{refund.status}", refund_payload(refund))
