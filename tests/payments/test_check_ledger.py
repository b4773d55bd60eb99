"""`python manage.py check_ledger`: clean books pass, every kind of corruption
is reported and makes the command exit non-zero."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import timezone

from payments.ledger.hooks import register_ledger_check, unregister_ledger_check
from payments.ledger.models import PLATFORM_FEES, PROCESSOR_CLEARING, wallet_account
from payments.models import LedgerLine, LedgerTransaction, Payout, PayoutItem

from .conftest import add_card, credit_wallet

pytestmark = pytest.mark.django_db


class Terminal(StringIO):
    def isatty(self):
        return True


def check_ledger(stdout=None) -> str:
    out = stdout or StringIO()
    call_command("check_ledger", stdout=out)
    return out.getvalue()


def failing_check_ledger() -> tuple[str, CommandError]:
    out = StringIO()
    with pytest.raises(CommandError) as failure:
        call_command("check_ledger", stdout=out)
    return out.getvalue(), failure.value


def insert_line(txn: LedgerTransaction, account: str, amount: int) -> None:
    """Raw SQL, past the model's append-only guard and the posting service's
    balance check: what a bad migration or a hand-made fix could do."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {LedgerLine._meta.db_table} "  # noqa: S608
            "(transaction_id, account, amount, created_at) VALUES (%s, %s, %s, %s)",
            [txn.pk, account, amount, timezone.now()],
        )


@pytest.fixture
def books(payee, alice, committed):
    """A ledger with collections, a verification charge and refund, a paid payout
    and money still in the wallet."""
    credit_wallet(payee.merchant, 150_000)
    with committed():
        add_card(alice)
        call_command("run_payouts", stdout=StringIO())
    credit_wallet(payee.merchant, 40_000)
    assert Payout.objects.get().status == "paid"
    return payee.merchant


def test_clean_books_pass_with_exit_status_zero(books):
    assert check_ledger() == (
        "live: clean (9 checks).\n"
        "test: clean (9 checks).\n"
        "check_ledger: clean (9 checks on each side: live, test).\n"
    )


def test_a_payout_whose_lines_do_not_add_up_to_it_fails_the_check(books):
    payout = Payout.objects.get()
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {PayoutItem._meta.db_table} WHERE payout_id = %s",  # noqa: S608
            [payout.pk],
        )

    output, _ = failing_check_ledger()

    assert (
        f"payout {payout.public_id} is for {payout.amount}, the lines it paid out "
        "add up to 0"
    ) in output
    wallet = wallet_account(books.public_id)
    assert f"{wallet} holds 39000, its lines not paid out add up to " in output


def test_an_empty_ledger_is_clean(db):
    assert "clean" in check_ledger()


def test_an_unbalanced_line_inserted_by_raw_sql_fails_the_check(books):
    txn = LedgerTransaction.objects.filter(kind="collection").first()
    insert_line(txn, PROCESSOR_CLEARING, 1)

    output, error = failing_check_ledger()

    assert error.returncode == 1
    assert f"transaction {txn.public_id} does not balance" in output
    assert "breach" in str(error)


def test_a_wallet_line_moved_to_another_merchant_fails_the_check(
    books, other_merchant_with_key
):
    txn = LedgerTransaction.objects.filter(kind="collection").first()
    other = wallet_account(other_merchant_with_key.merchant.public_id)
    # Balanced, but the money sits in the wrong merchant's wallet.
    insert_line(txn, other, -100)
    insert_line(txn, wallet_account(books.public_id), 100)

    output, _ = failing_check_ledger()

    assert f"posts to {other} for another merchant" in output
    assert "wallets match" in output


def test_a_fee_that_breaks_the_rule_fails_the_check(books):
    txn = LedgerTransaction.objects.filter(kind="collection").first()
    # Balanced lines, but the platform keeps one kobo too many.
    insert_line(txn, PLATFORM_FEES, -1)
    insert_line(txn, wallet_account(books.public_id), 1)

    output, _ = failing_check_ledger()

    assert f"transaction {txn.public_id} (collection): fees lines hold" in output


def test_a_payout_whose_status_disagrees_with_its_postings_fails_the_check(books):
    payout = Payout.objects.get()
    Payout.objects.filter(pk=payout.pk).update(status="processing")

    output, _ = failing_check_ledger()

    assert f"payout {payout.public_id} (processing) has postings" in output
    assert "payouts_in_transit holds 0, the open payouts" in output


def test_a_refund_posting_that_names_no_charge_fails_the_check(books, alice):
    refund = LedgerTransaction.objects.get(kind="verification_refund")
    charge_reference = refund.reference
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {LedgerTransaction._meta.db_table} "  # noqa: S608
            "SET reference = %s WHERE id = %s",
            ["card-unknown", refund.pk],
        )

    output, _ = failing_check_ledger()

    assert "verification_refund posting card-unknown matches no" in output
    assert f"processed refund of {charge_reference} (5000) is posted as None" in output


def test_checks_registered_by_other_apps_run_too(books):
    def paid_installments_have_one_collection(livemode):
        if livemode:
            yield "installment inst_x is paid but has 0 collections"

    register_ledger_check(paid_installments_have_one_collection)
    try:
        output, _ = failing_check_ledger()
    finally:
        unregister_ledger_check("paid_installments_have_one_collection")

    assert (
        "BREACH live [paid_installments_have_one_collection] installment inst_x is "
        "paid but has 0 collections"
    ) in output
    assert "test: clean (10 checks)" in output
    assert "clean (9 checks)" in check_ledger()


def test_a_terminal_shows_a_progress_line(books):
    screen = Terminal()
    check_ledger(stdout=screen)

    shown = screen.getvalue()
    assert "\r  0% 0/9 live: every transaction balances" in shown
    assert "\r100% 9/9 live: done" in shown
    assert "\r  0% 0/9 test: every transaction balances" in shown
    assert shown.endswith("check_ledger: clean (9 checks on each side: live, test).\n")


def test_a_pipe_gets_no_progress_line(books):
    assert "\r" not in check_ledger()
