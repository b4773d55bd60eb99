"""Kept balances under concurrent postings (PostgreSQL, issue 19): two engine
processes collect one merchant's installments while a refund of the same
merchant is posted and the ledger checkpoint runs again and again; afterwards
every kept balance equals the sum of its lines and the books are clean."""

import pytest
from django.db import connection
from django.db.models import Sum

from installments.plans.models import Installment, PaymentPlan
from payments.ledger import selectors
from payments.ledger.balances import balances_checkpoint, kept_differences
from payments.ledger.models import (
    PAYOUTS_IN_TRANSIT,
    PLATFORM_FEES,
    PROCESSOR_CLEARING,
    REFUNDS_IN_TRANSIT,
    wallet_account,
)
from payments.models import LedgerLine, LedgerTransaction

from .conftest import check_ledger, make_active_plan, refund
from .engines import due_installments, engine_process

CUSTOMERS = 300


def summed(account: str, **transaction) -> int:
    lines = LedgerLine.objects.filter(account=account)
    if transaction:
        lines = lines.filter(**{f"transaction__{k}": v for k, v in transaction.items()})
    return lines.aggregate(total=Sum("amount"))["total"] or 0


@pytest.mark.postgres
@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL (two real engines)"
)
@pytest.mark.django_db(transaction=True)
def test_two_engines_a_refund_and_checkpoints_leave_kept_balances_equal_the_sums():
    setup = make_active_plan()
    merchant = setup.owner.merchant
    due_installments(CUSTOMERS)
    # Every due installment is the one merchant's: both engines post to its
    # wallet, and to the shared accounts, at once.
    PaymentPlan.objects.exclude(pk=setup.plan.pk).update(merchant=merchant)
    balances_checkpoint()

    before = LedgerTransaction.objects.count()
    engines = [engine_process(), engine_process()]
    checkpoints, refunded = [], None
    while any(engine.poll() is None for engine in engines):
        checkpoints.append(balances_checkpoint())
        # The refund once the engines are posting.
        if refunded is None and LedgerTransaction.objects.count() > before:
            refunded = refund(setup, 10_000)
    assert refunded is not None and refunded.status_code == 201, refunded
    for engine in engines:
        stdout, stderr = engine.communicate(timeout=600)
        assert engine.returncode == 0, stderr[-3000:]
    checkpoints.append(balances_checkpoint())

    assert Installment.objects.filter(status="paid").count() == 2 * CUSTOMERS
    assert len([c for c in checkpoints if c is not None and c.keys]) >= 2
    assert kept_differences() == []
    wallet = wallet_account(merchant.public_id)
    for account in (
        wallet,
        PROCESSOR_CLEARING,
        PLATFORM_FEES,
        PAYOUTS_IN_TRANSIT,
        REFUNDS_IN_TRANSIT,
    ):
        assert selectors.account_balance(account) == summed(account), account
    balances = selectors.wallet_balances(merchant)
    assert balances.available_balance == -summed(wallet)
    assert balances.transactions == (
        LedgerTransaction.objects.filter(lines__account=wallet).count()
    )
    assert selectors.merchant_in_transit(merchant) == -summed(
        REFUNDS_IN_TRANSIT, merchant=merchant
    )
    assert "clean" in check_ledger()
