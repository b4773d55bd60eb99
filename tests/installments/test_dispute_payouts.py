"""Payouts while a dispute is open (DESIGN sections 14 and 19): the hold is out
of the wallet's available balance, so a payout run pays out exactly what is
available (the merchant's other plans' money) and nothing of the held amount;
once the dispute is won, the next payout includes it."""

import pytest
from django.core.cache import cache

from installments.disputes.models import Dispute
from payments.ledger.models import DISPUTES_HELD, LedgerTransaction
from payments.ledger.selectors import account_balance, wallet_available_balance
from payments.models import Payout
from payments.payouts.models import PayoutItem
from payments.payouts.tasks import run_payouts

from ..conftest import make_merchant_with_key
from ..payments.conftest import set_payout_account
from .conftest import check_ledger, collect, installments_of, make_active_plan
from .disputes import deposit_reference, dispute_decide, dispute_open

pytestmark = pytest.mark.django_db(transaction=True)


def payouts_of(merchant) -> list[Payout]:
    return list(Payout.objects.filter(merchant=merchant).order_by("id"))


def paid_lines(payout: Payout) -> set[int]:
    return set(
        PayoutItem.objects.filter(payout=payout).values_list("line_id", flat=True)
    )


def wallet_line(kind: str, dispute: Dispute) -> int:
    """The wallet line of one of the dispute's postings."""
    txn = LedgerTransaction.objects.get(kind=kind, reference=dispute.public_id)
    return txn.lines.get(account__startswith="merchant_wallet:").pk


def test_a_payout_during_a_dispute_pays_out_nothing_held_and_the_next_pays_it():
    cache.clear()  # the bank list is cached; the payout account looks it up
    owner = make_merchant_with_key()
    set_payout_account(owner.merchant)
    merchant = owner.merchant
    # Two plans of the merchant, the disputed one big enough that what it
    # holds is a payout of its own once released.
    disputed = make_active_plan(owner, amount=1_000_000, order_reference="ORD-1")
    other = make_active_plan(
        owner, email="bola@mail.example.com", amount=600_000, order_reference="ORD-2"
    )
    collect(on_date=installments_of(other.plan)[0].due_date)
    dispute = dispute_open(deposit_reference(disputed.plan))
    held = dispute.amount_held
    assert held == disputed.plan.deposit_amount > 0

    available = wallet_available_balance(merchant)
    assert available > 0  # the other plan's money (and the rest of this one)
    assert run_payouts() == 1
    [first] = payouts_of(merchant)
    # Exactly the available balance, which already excludes the hold.
    assert first.amount == available
    assert wallet_available_balance(merchant) == 0
    assert -account_balance(DISPUTES_HELD) == held
    # The hold's own line went out with the payout (netted against it).
    assert wallet_line("dispute_held", dispute) in paid_lines(first)
    assert "clean" in check_ledger()

    # While the dispute is open, another run pays nothing.
    assert run_payouts() == 0
    assert payouts_of(merchant) == [first]

    dispute = dispute_decide(dispute, won=True)
    assert dispute.status == Dispute.Status.WON
    assert wallet_available_balance(merchant) == held
    assert run_payouts() == 1
    first_again, second = payouts_of(merchant)
    assert first_again == first
    assert second.amount == held
    assert wallet_line("dispute_released", dispute) in paid_lines(second)
    assert wallet_available_balance(merchant) == 0
    assert account_balance(DISPUTES_HELD) == 0
    assert "clean" in check_ledger()
