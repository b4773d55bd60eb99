"""Reads for paying early: what a plan's page offers its customer."""

from dataclasses import dataclass

from config.api.ids import row_by_public_id
from payments.gateway.processors.base import USSD_BANKS, PayChannel
from payments.methods.selectors import payment_methods_chargeable

from ..plans.models import Installment, PaymentPlan
from .errors import EarlyPaymentNotFound
from .models import EarlyPayment

UNPAID = Installment.UNPAID


@dataclass(frozen=True)
class EarlyPaymentChoices:
    """The installments that can be paid now (by public id), what paying off
    the plan charges, the methods to pay with (the default first), the USSD
    banks (code, name) a payment without one may dial, and the plan's bank
    transfer or USSD payment waiting for the customer, if any."""

    installment_ids: frozenset[str]
    payoff_amount: int
    methods: list
    ussd_banks: tuple[tuple[str, str], ...] = ()
    pending: EarlyPayment | None = None


def early_payment_choices(customer, plan: PaymentPlan) -> EarlyPaymentChoices:
    unpaid = []
    if plan.status == PaymentPlan.Status.ACTIVE:
        unpaid = [row for row in plan.installments.all() if row.status in UNPAID]
    return EarlyPaymentChoices(
        installment_ids=frozenset(row.public_id for row in unpaid),
        payoff_amount=sum(row.amount_owed for row in unpaid),
        methods=payment_methods_chargeable(customer, livemode=plan.merchant.livemode)
        if unpaid
        else [],
        ussd_banks=tuple(USSD_BANKS.items()) if unpaid else (),
        pending=plan.early_payments.filter(
            status=EarlyPayment.Status.PROCESSING, channel__in=PayChannel.OFFLINE
        ).first(),
    )


def _early_payment(rows, payment_id: str) -> EarlyPayment:
    """The early payment of `rows` with this `pay_...` id; 404 for any other."""
    payment = row_by_public_id(rows.select_related("plan__merchant"), payment_id, "pay")
    if payment is None:
        raise EarlyPaymentNotFound()
    return payment


def early_payment_of_plan(plan: PaymentPlan, payment_id: str) -> EarlyPayment:
    """One early payment of the plan (any channel) by its `pay_...` id; 404
    for any other id."""
    return _early_payment(EarlyPayment.objects.filter(plan=plan), payment_id)


def early_payment_of_merchant(merchant, payment_id: str) -> EarlyPayment:
    """One early payment of the merchant's plans by its `pay_...` id; 404 for
    any other id (another merchant's too)."""
    return _early_payment(
        EarlyPayment.objects.filter(plan__merchant=merchant), payment_id
    )


def early_payment_installments(payment: EarlyPayment) -> list[Installment]:
    """The installments an early payment pays, in their order in the plan."""
    return [
        item.installment
        for item in payment.items.select_related("installment").order_by(
            "installment__sequence"
        )
    ]
