"""The ledger's plan-refund postings (DESIGN section 14): through
`refunds_in_transit`, the fee given back by the one fee rule, a wallet that may
go below zero, payouts that wait for it; and what `check_ledger` catches."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from payments.ledger import selectors
from payments.ledger.fees import platform_fee
from payments.ledger.models import (
    PAYOUTS_IN_TRANSIT as PAYOUTS,
)
from payments.ledger.models import (
    REFUNDS_IN_TRANSIT,
    LedgerTransaction,
)
from payments.ledger.services import (
    RefundPosting,
    ledger_post,
    refund_post,
    refund_returned_post,
    refund_settled_post,
)
from payments.models import Payout
from payments.payouts.services import MINIMUM_PAYOUT

from ..factories import CustomerFactory
from .commands import check_ledger, run_payouts
from .conftest import credit_wallet

pytestmark = pytest.mark.django_db

CHARGE = "inst_abcdefghijklmnopqrstuv_a1"


def part(merchant, amount: int, n: int = 1) -> RefundPosting:
    return RefundPosting(
        merchant=merchant,
        customer=CustomerFactory(),
        reference=f"rf_abcdefghijklmnopqrstuv_{n}",
        collection_reference=CHARGE,
        refund_id="rf_abcdefghijklmnopqrstuv",
        amount=amount,
    )


def failing_check_ledger() -> str:
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("check_ledger", stdout=out)
    return out.getvalue()


def test_a_refund_moves_the_fee_and_the_rest_into_transit_then_out(payee):
    merchant = payee.merchant
    credit_wallet(merchant, 100_000, reference=CHARGE)
    refunded = part(merchant, 40_000)

    txn = refund_post(part=refunded, remaining=100_000)

    fee_back = platform_fee(100_000) - platform_fee(60_000)
    assert (txn.amount, txn.fee, txn.net) == (40_000, -fee_back, fee_back - 40_000)
    assert dict(txn.lines.values_list("account", "amount")) == {
        f"merchant_wallet:{merchant.public_id}": 40_000 - fee_back,
        "platform_fees": fee_back,
        REFUNDS_IN_TRANSIT: -40_000,
    }
    assert selectors.wallet_available_balance(merchant) == 60_000 - platform_fee(60_000)
    assert "clean" in check_ledger()
    refund_settled_post(part=refunded)
    assert selectors.account_balance(REFUNDS_IN_TRANSIT) == 0
    assert "clean" in check_ledger()


def test_a_failed_refund_returns_by_the_fee_of_what_is_left_then(payee):
    merchant = payee.merchant
    credit_wallet(merchant, 75_000, reference=CHARGE)
    one, two = part(merchant, 20, 1), part(merchant, 20, 2)
    refund_post(part=one, remaining=75_000)  # fee 1875 -> 1875
    refund_post(part=two, remaining=74_980)  # fee 1875 -> 1874

    back = refund_returned_post(part=one, remaining=74_960)

    assert (back.fee, back.net) == (1, 19)
    assert "clean" in check_ledger()


def test_check_ledger_catches_a_refund_that_keeps_the_wrong_fee(payee):
    merchant = payee.merchant
    credit_wallet(merchant, 75_000, reference=CHARGE)
    # Split as if the collection still had 75,000 left after an earlier refund.
    # (54,980 -> 54,960 gives 1 kobo of fee back; 75,000 -> 74,980 gives none.)
    refund_post(part=part(merchant, 20_020, 1), remaining=75_000)
    refund_post(part=part(merchant, 20, 2), remaining=75_000)

    output = failing_check_ledger()

    assert f"collection {CHARGE} keeps a fee of" in output


def test_check_ledger_catches_a_refund_of_more_than_was_collected(payee):
    merchant = payee.merchant
    credit_wallet(merchant, 1_000, reference=CHARGE)
    refund_post(part=part(merchant, 1_000, 1), remaining=1_000)
    refund_post(part=part(merchant, 500, 2), remaining=500)
    # A third part against nothing left.
    refund_post(part=part(merchant, 500, 3), remaining=500)

    assert f"collection {CHARGE} gave back more than it collected" in (
        failing_check_ledger()
    )


def test_check_ledger_catches_a_refund_naming_no_collection(payee):
    refund_post(part=part(payee.merchant, 100), remaining=100)

    assert f"names no collection {CHARGE}" in failing_check_ledger()


def test_a_refund_of_money_paid_out_leaves_the_wallet_negative_and_payouts_wait(
    payee, committed
):
    merchant = payee.merchant
    net = credit_wallet(merchant, 150_000, reference=CHARGE)
    with committed():
        run_payouts()
    assert Payout.objects.get().amount == net

    refund_post(part=part(merchant, 150_000), remaining=150_000)

    assert selectors.wallet_available_balance(merchant) == -net
    assert "clean" in check_ledger()  # negative, but a refund made it so
    with committed():
        run_payouts()
    assert Payout.objects.count() == 1
    # Collections first cover what is owed; payouts wait for the threshold.
    credit_wallet(merchant, 200_000)
    available = selectors.wallet_available_balance(merchant)
    assert 0 < available < MINIMUM_PAYOUT
    with committed():
        run_payouts()
    assert Payout.objects.count() == 1
    credit_wallet(merchant, 100_000)
    with committed():
        run_payouts()
    assert Payout.objects.count() == 2
    assert Payout.objects.latest("id").amount >= MINIMUM_PAYOUT
    assert "clean" in check_ledger()


def test_a_negative_wallet_without_any_refund_is_still_a_breach(payee):
    merchant = payee.merchant
    credit_wallet(merchant, 1_000)
    # 2,000 out of a wallet holding 975: no refund explains it.
    ledger_post(
        kind=LedgerTransaction.Kind.PAYOUT,
        reference="po_abcdefghijklmnopqrstuv",
        merchant=merchant,
        amount=2_000,
        net=-2_000,
        lines=[(f"merchant_wallet:{merchant.public_id}", 2_000), (PAYOUTS, -2_000)],
    )

    assert (
        f"wallet of {merchant.public_id} is negative (-1025) without refunds or "
        "disputes" in (failing_check_ledger())
    )
