"""The customer pays early (DESIGN section 14): one unpaid installment, or
everything left in one charge, on the payment method they choose (their default
otherwise), or by a bank transfer or USSD code they complete within 30 minutes
(DESIGN section 17). Claim and commit (claims.py), charge outside any
transaction, settle in a durable transaction (outcomes.py).
"""

from django.db import transaction
from django.utils import timezone

from config.api.errors import InvalidRequest
from payments.gateway.declines import decline_of
from payments.gateway.errors import ProcessorError
from payments.gateway.processors.base import (
    USSD_BANKS,
    FailureReason,
    OfflineCharge,
    PayChannel,
)
from payments.methods import selectors as method_selectors
from payments.methods.errors import (
    PaymentFailed,
    PaymentMethodInactive,
    PaymentMethodNotFound,
)
from payments.methods.models import PaymentMethod
from payments.methods.services.saved_charges import (
    FAILED,
    ChargeOutcome,
    saved_method_charge,
)

from ..plans.errors import PaymentInProgress
from ..plans.models import PaymentPlan
from ..plans.selectors import plans_with_installments
from .claims import early_payment_claim
from .errors import NoPaymentMethod
from .models import OFFLINE_EXPIRY, EarlyPayment
from .offline import offline_charge_open
from .outcomes import early_payment_settle


def payment_method_for_early_payment(
    *, customer, plan: PaymentPlan, payment_method_id: str | None, method=None
) -> PaymentMethod:
    """The customer's own active method of the plan's side named,
    or that side's default (then its newest active one, as the engine would
    charge); `method` when already chosen, if it is of that side (a method of
    the other side is never charged for the plan)."""
    livemode = plan.merchant.livemode
    if method is not None:
        if method.livemode != livemode:
            raise PaymentMethodNotFound()
        return method
    if payment_method_id:
        method = method_selectors.own_payment_method(
            customer, payment_method_id, livemode=livemode
        )
        if not method.is_active:
            raise PaymentMethodInactive()
        return method
    chargeable = method_selectors.payment_methods_chargeable(
        customer, livemode=livemode
    )
    if not chargeable:
        raise NoPaymentMethod()
    return chargeable[0]


def plan_pay_early(
    *,
    customer,
    plan: PaymentPlan,
    installment_id: str | None = None,
    payment_method_id: str | None = None,
    overdue: bool = False,
    method=None,
) -> PaymentPlan:
    """Pay `installment_id` of the customer's plan now, or (None) everything
    left in one charge (`overdue`: everything overdue, from a pay link); the
    plan as it is afterwards. `method` is a method of the customer's already
    chosen (a pay link's new card) instead of `payment_method_id`.

    Declined: 402 `payment_failed`, every installment as it was. No answer from
    the processor: 409 `payment_in_progress`; the payment stays in flight and
    is settled by the processor's `charge.success` or the engine's next pass
    once its lease ends, by verifying its reference (never by a new charge)."""
    method = payment_method_for_early_payment(
        customer=customer, plan=plan, payment_method_id=payment_method_id, method=method
    )
    payment = early_payment_claim(
        plan=plan,
        method=method,
        installment_id=installment_id,
        now=timezone.now(),
        overdue=overdue,
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


def offline_channel_check(*, channel: str, bank: str) -> None:
    """400 `invalid_request` for a channel that is not bank transfer or USSD,
    or a USSD payment without one of USSD_BANKS' codes (the API's serializer
    says the same first)."""
    if channel not in PayChannel.OFFLINE:
        raise InvalidRequest(
            f"channel must be one of {', '.join(PayChannel.OFFLINE)} to pay without "
            "a saved payment method."
        )
    if channel == PayChannel.USSD and bank not in USSD_BANKS:
        raise InvalidRequest(
            f"bank must be one of {', '.join(USSD_BANKS)} (the USSD code of the "
            "customer's bank) to pay by USSD."
        )


def _instructions_record(payment: EarlyPayment, charge: OfflineCharge) -> EarlyPayment:
    """Keep what the customer pays to, as the processor gave it."""
    instructions = {
        "bank_name": charge.bank_name,
        "account_number": charge.account_number,
        "account_name": charge.account_name,
        "ussd_code": charge.ussd_code,
        "display_text": charge.display_text,
    }
    with transaction.atomic(durable=True):
        EarlyPayment.objects.filter(pk=payment.pk).update(
            instructions=instructions, processor_id=charge.processor_id[:64]
        )
    return EarlyPayment.objects.get(pk=payment.pk)


def plan_pay_offline(
    *,
    customer,
    plan: PaymentPlan,
    installment_id: str | None,
    channel: str,
    bank: str = "",
    overdue: bool = False,
) -> EarlyPayment:
    """Pay `installment_id` of the customer's plan, or (None) everything left,
    by a bank transfer (`channel` "bank_transfer") or USSD ("ussd", with `bank`
    a key of USSD_BANKS): the early payment, `processing`, with the account or
    code to pay in its `instructions` until its `expires_at` (30 minutes).

    Its installments are claimed like any early payment's and held
    (`processing`) until the processor's `charge.success` settles it
    (confirmations.py) or it expires (expiry.py). Refused at once by the
    processor: 402 `payment_failed`, every installment as it was. No answer:
    502 `processor_error`; the payment stays pending, with nothing to pay to,
    and ends when it expires (its reference verified first)."""
    offline_channel_check(channel=channel, bank=bank)
    now = timezone.now()
    payment = early_payment_claim(
        plan=plan,
        method=None,
        installment_id=installment_id,
        now=now,
        channel=channel,
        expires_at=now + OFFLINE_EXPIRY,
        overdue=overdue,
    )
    payment.plan = plan
    opened = offline_charge_open(payment=payment, email=customer.email, bank=bank)
    if opened.charge is not None:
        return _instructions_record(payment, opened.charge)
    if opened.refused:
        early_payment_settle(
            payment=payment,
            outcome=ChargeOutcome(
                status=FAILED,
                reference=payment.reference,
                failure_reason=FailureReason.PROCESSOR_ERROR,
                message=opened.refused,
            ),
        )
        raise PaymentFailed(
            "The payment processor could not open this payment: "
            f"{opened.refused[:200]}. Nothing changed on your plan; try again, or "
            "pay another way."
        )
    raise ProcessorError(
        "The payment processor did not answer, so there is no account or code to "
        "pay to. Nothing is owed on this payment; it ends by itself at "
        f"{timezone.localtime(payment.expires_at):%H:%M} (Lagos time), and the "
        "plan can be paid again then."
    )


def plan_pay_as_asked(*, customer, plan: PaymentPlan, data: dict):
    """Pay as PayEarlyInput's validated `data` asks (the API's body, the plan
    page's form): with `channel`, `plan_pay_offline` (the pending
    EarlyPayment, to show how to pay it); else `plan_pay_early` (the plan,
    paid). Raises what they raise."""
    installment_id = None if data.get("payoff") else data["installment_id"]
    if "channel" in data:
        return plan_pay_offline(
            customer=customer,
            plan=plan,
            installment_id=installment_id,
            channel=data["channel"],
            bank=data.get("bank", ""),
        )
    return plan_pay_early(
        customer=customer,
        plan=plan,
        installment_id=installment_id,
        payment_method_id=data.get("payment_method_id"),
    )
