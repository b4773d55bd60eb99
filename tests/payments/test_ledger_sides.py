"""The ledger's two sides (test mode, DESIGN section 21; docs/wallet.md): a
test transaction is posted on its merchant row's side, its platform lines to
the `test:` accounts; every read of a merchant's wallet reads its side's; and
`check_ledger` checks each side's books on their own."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from merchants import services as merchant_services
from payments.ledger import selectors
from payments.ledger.balances import balances_checkpoint
from payments.ledger.models import (
    CUSTOMER_REFUNDS,
    PLATFORM_ACCOUNTS,
    PLATFORM_FEES,
    PROCESSOR_CLEARING,
    LedgerBalance,
    side_account,
    wallet_account,
)
from payments.ledger.services import (
    ledger_post,
    verification_charge_post,
    verification_refund_post,
)
from payments.models import LedgerLine, LedgerTransaction

from ..factories import CustomerFactory
from .conftest import credit_wallet, set_payout_account

pytestmark = pytest.mark.django_db


def insert_line(txn: LedgerTransaction, account: str, amount: int) -> None:
    """Raw SQL, past the append-only guard and the posting's balance check."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {LedgerLine._meta.db_table} "  # noqa: S608
            "(transaction_id, account, amount, created_at) VALUES (%s, %s, %s, %s)",
            [txn.pk, account, amount, timezone.now()],
        )


def check_ledger(*args) -> str:
    out = StringIO()
    call_command("check_ledger", *args, stdout=out)
    return out.getvalue()


def failing(*args) -> str:
    out = StringIO()
    with pytest.raises(CommandError) as failure:
        call_command("check_ledger", *args, stdout=out)
    assert failure.value.returncode == 1
    return out.getvalue()


@pytest.fixture
def both(payee, committed):
    """One account with money on each side: its live row and its test side's
    row each collected, paid out once by the payout run, and collected again."""
    live = payee.merchant
    test = merchant_services.test_side_for(live)
    set_payout_account(test)
    test.refresh_from_db()
    credit_wallet(live, 150_000)
    credit_wallet(test, 120_000)
    with committed():
        call_command("run_payouts", stdout=StringIO())
    credit_wallet(live, 40_000)
    credit_wallet(test, 30_000)
    return live, test


def lines_of(merchant) -> set[str]:
    return set(
        LedgerLine.objects.filter(transaction__merchant=merchant).values_list(
            "account", flat=True
        )
    )


def test_side_account_names_only_the_platforms_accounts_per_side():
    for account in PLATFORM_ACCOUNTS:
        assert side_account(account, True) == account
        assert side_account(account, False) == f"test:{account}"
    wallet = wallet_account("mer_x_test")
    assert side_account(wallet, False) == wallet


def test_a_test_sides_money_is_on_the_test_accounts_only(both):
    live, test = both
    assert lines_of(live) == {
        wallet_account(live.public_id),
        "processor_clearing",
        "platform_fees",
        "payouts_in_transit",
    }
    assert lines_of(test) == {
        wallet_account(test.public_id),
        "test:processor_clearing",
        "test:platform_fees",
        "test:payouts_in_transit",
    }
    assert set(
        LedgerTransaction.objects.filter(merchant=test).values_list(
            "livemode", flat=True
        )
    ) == {False}
    assert set(
        LedgerTransaction.objects.filter(merchant=live).values_list(
            "livemode", flat=True
        )
    ) == {True}


def test_the_platforms_live_totals_count_no_test_money(both):
    live, _ = both
    live_fees = sum(
        LedgerTransaction.objects.filter(merchant=live, kind="collection").values_list(
            "fee", flat=True
        )
    )
    assert -selectors.account_balance(PLATFORM_FEES) == live_fees


def test_each_wallet_reads_its_own_sides_accounts(both, committed):
    live, test = both
    for merchant, collected in ((live, 40_000), (test, 30_000)):
        balances = selectors.wallet_balances(merchant)
        assert balances.available_balance == collected - collected * 25 // 1000
        assert balances.pending_payout == 0
        assert balances.total_paid_out == merchant.payouts.get().amount
    assert (
        selectors.wallet_balances(live).total_paid_out
        != selectors.wallet_balances(test).total_paid_out
    )


def test_kept_balances_keep_each_sides_accounts_apart(both):
    balances_checkpoint()
    accounts = set(LedgerBalance.objects.values_list("account", flat=True))
    assert {"platform_fees", "test:platform_fees"} <= accounts
    live, test = both
    for merchant in both:
        balances = selectors.wallet_balances(merchant)
        assert balances.available_balance == selectors.wallet_available_balance(
            merchant
        )
    assert "live: clean" in check_ledger("--side", "live")
    assert "test: clean" in check_ledger("--side", "test")


def test_check_ledger_checks_both_sides_each_on_its_own(both):
    shown = check_ledger()
    assert "live: clean (" in shown
    assert "test: clean (" in shown
    assert shown.startswith("live: clean (")
    assert shown.endswith(" checks on each side: live, test).\n")
    assert "test:" not in check_ledger("--side", "live")
    assert "live:" not in check_ledger("--side", "test")


def test_a_test_transaction_on_a_live_account_is_a_test_breach_only(both):
    _, test = both
    txn = LedgerTransaction.objects.filter(merchant=test, kind="collection").first()
    insert_line(txn, PROCESSOR_CLEARING, 7)
    insert_line(txn, "test:processor_clearing", -7)

    shown = failing("--side", "test")

    assert "BREACH test [lines post to known accounts] lines post to an unknown " in (
        shown
    )
    assert "'processor_clearing'" in shown
    # The live side's checks read the live transactions' lines only.
    assert "live: clean" in check_ledger("--side", "live")


def test_a_kept_test_balance_corrupted_is_a_test_breach(both):
    balances_checkpoint()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE payments_ledgerbalance SET balance = balance - 1 "
            "WHERE account = %s AND kind = 'collection'",
            ["test:platform_fees"],
        )
    shown = failing("--side", "test")
    assert "BREACH test [kept balances equal their lines] kept balance of " in shown
    assert "live: clean" in check_ledger("--side", "live")


def test_a_transaction_off_its_merchants_side_is_a_breach(both):
    live, _ = both
    txn = LedgerTransaction.objects.filter(merchant=live).first()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE payments_ledgertransaction SET livemode = %s WHERE id = %s",
            [False, txn.pk],
        )
    shown = failing("--side", "test")
    assert f"transaction {txn.public_id} is not on its merchant" in shown


def test_a_posting_refuses_a_side_that_is_not_its_merchants(both):
    live, _ = both
    with pytest.raises(ValueError, match="on its side"):
        ledger_post(
            kind="collection",
            reference="inst_wrong_side",
            lines=[(PROCESSOR_CLEARING, 10), (PLATFORM_FEES, -10)],
            amount=10,
            merchant=live,
            livemode=False,
        )


def test_a_test_verification_charge_and_its_refund_are_on_the_test_side(db):
    customer = CustomerFactory()
    charge = verification_charge_post(
        customer=customer, amount=5_000, reference="card_side_1", livemode=False
    )
    refund = verification_refund_post(
        customer=customer, amount=5_000, reference="card_side_1"
    )
    for txn in (charge, refund):
        assert txn.livemode is False
        assert set(txn.lines.values_list("account", flat=True)) == {
            "test:processor_clearing",
            side_account(CUSTOMER_REFUNDS, False),
        }
    live = verification_charge_post(
        customer=customer, amount=5_000, reference="card_side_2"
    )
    assert live.livemode is True
    assert set(live.lines.values_list("account", flat=True)) == {
        "processor_clearing",
        "customer_refunds",
    }
