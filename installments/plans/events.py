"""The payloads of the events plans and installments emit (docs/webhooks.md),
built here only: the deposit, the collection engine, early payments and the
processor's late confirmations send the same shapes."""

from typing import TYPE_CHECKING

from config.api.formats import iso_utc
from payments.gateway.declines import decline_of

from . import hooks, selectors
from .selectors import installments_paid_sums

if TYPE_CHECKING:
    from datetime import datetime

    from ..collection.claims import Claim
    from ..deposits.models import DepositAttempt
    from ..refunds.models import Refund
    from ..reschedules.models import Reschedule
    from .models import Installment, PaymentPlan

Event = tuple[str, dict]

# An installment collected is announced twice, with the same payload.
INSTALLMENT_PAID = ("payment_plan.installment_paid", "installment.paid")


def plan_data(plan: "PaymentPlan") -> dict:
    return {
        "resourceType": "payment_plan",
        "resourceId": plan.public_id,
        "orderReference": plan.order_reference,
    }


def _channel(channel: str) -> str | None:
    """Every payment event's `channel` (PayChannel): null when no charge was
    made (no payment method) or the processor's answer did not name it."""
    return channel or None


def payment_success(
    plan: "PaymentPlan", attempt: "DepositAttempt", *, channel: str
) -> Event:
    """The deposit was collected, by `channel`."""
    return (
        "payment.success",
        {
            **plan_data(plan),
            "amount": attempt.amount,
            "currency": attempt.currency,
            "channel": _channel(channel),
        },
    )


def payment_failed(plan: "PaymentPlan", reason: str, *, channel: str) -> Event:
    """A deposit or an installment attempt was declined, or a bank transfer or
    USSD payment expired (`expired`): the reason, whether the same method may
    still pay (the decline table's soft or hard), and the channel tried."""
    return (
        "payment.failed",
        {
            **plan_data(plan),
            "reason": reason,
            "retryable": decline_of(reason).retryable,
            "channel": _channel(channel),
        },
    )


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


def plan_lifecycle_payload(
    plan: "PaymentPlan", *, installments_paid: int | None = None
) -> dict:
    """What every plan lifecycle event carries (`payment_plan.completed`,
    `.defaulted`, `.cancelled`): the plan and its money at that moment.
    `installments_paid` is what its paid installments add up to, when the
    caller has it (a batch's plans at once); otherwise it is read."""
    if installments_paid is None:
        installments_paid = installments_paid_sums([plan.pk]).get(plan.pk, 0)
    return {
        **plan_data(plan),
        "amountPaid": plan.deposit_amount + installments_paid,
        # What refunds took off the order so far: their reductions and their
        # money not failed, of which `amountRefundPending` is still on its way
        # (and comes back, refundable again, if it fails).
        "amountRefunded": plan.amount_refunded,
        "amountRefundPending": hooks.amount_refund_pending(plan),
        # What is still owed: the unpaid installments after refunds' reductions.
        "amountRemaining": selectors.amount_remaining(plan),
    }


def plan_completed(
    plan: "PaymentPlan", *, installments_paid: int | None = None
) -> Event:
    """Every installment of the plan is paid; once per plan."""
    payload = plan_lifecycle_payload(plan, installments_paid=installments_paid)
    return ("payment_plan.completed", payload)


def plan_defaulted(
    plan: "PaymentPlan", *, installments_paid: int | None = None
) -> Event:
    """An installment failed its last retry; once per plan."""
    payload = plan_lifecycle_payload(plan, installments_paid=installments_paid)
    return ("payment_plan.defaulted", payload)


def plan_rescheduled(reschedule: "Reschedule") -> Event:
    """An installment's due date moved (by the customer or the merchant): the
    plan's money as every plan lifecycle event carries it (unchanged: a move
    never changes an amount), and which installment moved from what date to
    what date."""
    installment = reschedule.installment
    return (
        "payment_plan.rescheduled",
        {
            **plan_lifecycle_payload(reschedule.plan),
            "installmentId": installment.public_id,
            "sequence": installment.sequence,
            "previousDueDate": reschedule.from_date.isoformat(),
            "dueDate": reschedule.to_date.isoformat(),
            "rescheduledBy": reschedule.by,
        },
    )


def _installment_paid(data: dict) -> list[Event]:
    return [(event_type, data) for event_type in INSTALLMENT_PAID]


def installment_paid(
    claim: "Claim", processor_reference: str, *, channel: str
) -> list[Event]:
    """An installment collected by the engine (the claim that charged it);
    `amount` is what that charge collected (the rest, after a partial
    collection)."""
    return _installment_paid(
        {
            "resourceType": "installment",
            "resourceId": claim.public_id,
            "paymentPlanId": claim.plan_public_id,
            "customerId": claim.customer_public_id,
            "orderReference": claim.order_reference,
            "amount": claim.amount,
            "currency": claim.currency,
            "processorReference": processor_reference,
            "channel": _channel(channel),
        }
    )


def installment_partially_paid(
    claim: "Claim", *, amount: int, next_attempt_at: "datetime | None", channel: str
) -> Event:
    """The last retry's partial debit collected `amount` of what the
    installment owed (DESIGN section 15); the rest is still owed."""
    paid = claim.amount_paid + amount
    owed = claim.amount_paid + claim.amount
    return (
        "installment.partially_paid",
        {
            "resourceType": "installment",
            "resourceId": claim.public_id,
            "paymentPlanId": claim.plan_public_id,
            "customerId": claim.customer_public_id,
            "orderReference": claim.order_reference,
            "amount": amount,
            "amountPaid": paid,
            "amountRemaining": owed - paid,
            "currency": claim.currency,
            "processorReference": claim.partial_debit_reference,
            "nextAttemptAt": iso_utc(next_attempt_at),
            "channel": _channel(channel),
        },
    )


def installment_paid_early(
    installment: "Installment",
    plan: "PaymentPlan",
    processor_reference: str,
    *,
    channel: str,
) -> list[Event]:
    """An installment the customer paid early (alone, or in a payoff: then
    `processorReference` is the payoff's one charge); `amount` is what that
    charge collected of it (the rest, after a partial collection)."""
    return _installment_paid(
        {
            "resourceType": "installment",
            "resourceId": installment.public_id,
            "paymentPlanId": plan.public_id,
            "customerId": plan.customer.public_id,
            "orderReference": plan.order_reference,
            "amount": installment.amount_owed,
            "currency": installment.currency,
            "processorReference": processor_reference,
            "channel": _channel(channel),
        }
    )


def plan_cancelled(plan: "PaymentPlan") -> Event:
    """Cancelled by its merchant, or by a refund that cancelled every unpaid
    installment."""
    return ("payment_plan.cancelled", plan_lifecycle_payload(plan))


def refund_payload(refund: "Refund") -> dict:
    """The refund as it stands: `amount` what it took off the order
    (`amountReduced + amountReturned`), `amountReturned` its money not failed
    (`amountPending` of it still on its way), `amountFailed` its money that
    failed and is refundable again; `amountRequested` what was asked."""
    plan = refund.plan
    return {
        "resourceType": "refund",
        "resourceId": refund.public_id,
        "paymentPlanId": plan.public_id,
        "orderReference": plan.order_reference,
        "amount": refund.amount,
        "amountRequested": refund.amount_requested,
        "amountReduced": refund.amount_reduced,
        "amountReturned": refund.amount_returned,
        "amountPending": refund.amount_pending,
        "amountFailed": refund.amount_failed,
        "currency": refund.currency,
        "reason": refund.reason,
        "status": refund.status,
    }


def refund_created(refund: "Refund") -> Event:
    return ("refund.created", refund_payload(refund))


def refund_settled(refund: "Refund") -> Event:
    """`refund.processed` or `refund.failed`, from the refund's final status."""
    return (f"refund.{refund.status}", refund_payload(refund))
