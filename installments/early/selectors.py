"""Reads for paying early: what a plan's page offers its customer."""

from dataclasses import dataclass

from payments.methods.selectors import payment_methods_chargeable

from ..plans.models import Installment, PaymentPlan

UNPAID = Installment.UNPAID


@dataclass(frozen=True)
class EarlyPaymentChoices:
    """The installments that can be paid now (by public id), what paying off
    the plan charges, and the methods to pay with (the default first)."""

    installment_ids: frozenset[str]
    payoff_amount: int
    methods: list


def early_payment_choices(customer, plan: PaymentPlan) -> EarlyPaymentChoices:
    unpaid = []
    if plan.status == PaymentPlan.Status.ACTIVE:
        unpaid = [row for row in plan.installments.all() if row.status in UNPAID]
    return EarlyPaymentChoices(
        installment_ids=frozenset(row.public_id for row in unpaid),
        payoff_amount=sum(row.amount_owed for row in unpaid),
        methods=payment_methods_chargeable(customer) if unpaid else [],
    )
