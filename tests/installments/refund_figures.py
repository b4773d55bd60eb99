"""Figures of a plan refund's money: the wallet, the platform fees, a snapshot."""

from installments.plans.models import PaymentPlan
from installments.refunds.models import Refund
from payments.ledger.models import PLATFORM_FEES, LedgerTransaction, wallet_account
from payments.ledger.selectors import account_balance
from payments.models import SandboxRefund
from webhooks.models import Event

from .conftest import (
    installments_of,
)


def wallet(setup) -> int:
    return -account_balance(wallet_account(setup.owner.merchant.public_id))


def fees() -> int:
    return -account_balance(PLATFORM_FEES)


def snapshot(setup) -> dict:
    plan = PaymentPlan.objects.get(pk=setup.plan.pk)
    return {
        "plan": (plan.status, plan.amount_refunded),
        "installments": [
            (row.status, row.amount, row.original_amount)
            for row in installments_of(plan)
        ],
        "refunds": Refund.objects.count(),
        "ledger": LedgerTransaction.objects.count(),
        "events": Event.objects.count(),
        "processor refunds": SandboxRefund.objects.count(),
    }
