"""The customer pays early (DESIGN section 14): one unpaid installment, or
everything left in one charge, on the payment method they choose (their default
otherwise). Claim and commit (claims.py), charge outside any transaction, settle
in a durable transaction (outcomes.py).
"""

from django.utils import timezone

from payments.gateway.declines import decline_of
from payments.methods import selectors as method_selectors
from payments.methods.errors import PaymentFailed, PaymentMethodInactive
from payments.methods.models import PaymentMethod
from payments.methods.services.saved_charges import saved_method_charge

from ..plans.errors import PaymentInProgress
from ..plans.models import PaymentPlan
from ..plans.selectors import plans_with_installments
from .claims import early_payment_claim
from .errors import NoPaymentMethod
from .models import EarlyPayment
from .outcomes import early_payment_settle


def payment_method_for_early_payment(
    *, customer, payment_method_id: str | None
) -> PaymentMethod:
    """The customer's own active method named, or their default (then their
    newest active one, as the engine would charge)."""
    if payment_method_id:
        method = method_selectors.own_payment_method(customer, payment_method_id)
        if not method.is_active:
            raise PaymentMethodInactive()
        return method
    chargeable = method_selectors.payment_methods_chargeable(customer)
    if not chargeable:
        raise NoPaymentMethod()
    return chargeable[0]


def plan_pay_early(
    *,
    customer,
    plan: PaymentPlan,
    installment_id: str | None = None,
    payment_method_id: str | None = None,
) -> PaymentPlan:
    """Pay `installment_id` of the customer's plan now, or (None) everything
    left in one charge; the plan as it is afterwards.

    Declined: 402 `payment_failed`, every installment as it was. No answer from
    the processor: 409 `payment_in_progress`; the payment stays in flight and
    is settled by the processor's `charge.success` or the engine's next pass
    once its lease ends, by verifying its reference (never by a new charge)."""
    method = payment_method_for_early_payment(
        customer=customer, payment_method_id=payment_method_id
    )
    payment = early_payment_claim(
        plan=plan, method=method, installment_id=installment_id, now=timezone.now()
    )
    outcome = saved_method_charge(
        method=method,
        amount=payment.amount,
        reference=payment.reference,
        currency=payment.currency,
        metadata={
            "purpose": f"early_{payment.kind}",
            "payment_plan_id": plan.public_id,
            "order_reference": plan.order_reference,
            "installment_ids": list(
                payment.items.order_by("installment__sequence").values_list(
                    "installment__public_id", flat=True
                )
            ),
        },
    )
    payment = early_payment_settle(payment=payment, outcome=outcome)
    if payment.status == EarlyPayment.Status.SUCCEEDED:
        return plans_with_installments().get(pk=plan.pk)
    if payment.status == EarlyPayment.Status.FAILED:
        reason = decline_of(payment.failure_reason).text
        raise PaymentFailed(
            f"The payment could not be charged: {reason}. Nothing changed on your "
            "plan; try another payment method, or let the installments be "
            "collected on their dates."
        )
    raise PaymentInProgress(
        "The payment processor has not confirmed this payment yet; check the plan "
        "again in a moment instead of paying a second time."
    )
