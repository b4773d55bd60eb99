"""Kept balances (issue 19, payments/ledger/balances.py): a balance is the kept
rows plus the lines since the newest checkpoint, equal to the sum of all its
lines on either side of a checkpoint; the recurring job writes the checkpoints;
`check_ledger` proves every kept row and names the account that differs; the
wallet's list pages on the lines' index with a kept count."""

import threading
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.models import Sum
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from config.schedules import declared
from payments.ledger import selectors
from payments.ledger.balances import balances_checkpoint
from payments.ledger.models import (
    PAYOUTS_IN_TRANSIT,
    PLATFORM_FEES,
    PROCESSOR_CLEARING,
    REFUNDS_IN_TRANSIT,
    LedgerBalance,
    LedgerLine,
    wallet_account,
)
from payments.ledger.services import Collection, collections_post
from payments.ledger.tasks import checkpoint_balances

from ..factories import CustomerFactory
from .conftest import add_card, credit_wallet, postgres_only, set_payout_account

ACCOUNTS = (PROCESSOR_CLEARING, PLATFORM_FEES, PAYOUTS_IN_TRANSIT, REFUNDS_IN_TRANSIT)


def summed(account: str, **transaction) -> int:
    """The sum of every line of the account, straight from the lines."""
    lines = LedgerLine.objects.filter(account=account)
    if transaction:
        lines = lines.filter(**{f"transaction__{k}": v for k, v in transaction.items()})
    return lines.aggregate(total=Sum("amount"))["total"] or 0


def assert_balances_are_the_sums(merchant) -> None:
    wallet = wallet_account(merchant.public_id)
    for account in (wallet, *ACCOUNTS):
        assert selectors.account_balance(account) == summed(account), account
    balances = selectors.wallet_balances(merchant)
    assert balances.available_balance == -summed(wallet)
    assert balances.pending_payout == -summed(PAYOUTS_IN_TRANSIT, merchant=merchant)
    assert balances.total_paid_out == -summed(
        PROCESSOR_CLEARING,
        merchant=merchant,
        kind__in=["payout_settled", "payout_returned"],
    )
    assert balances.transactions == LedgerLine.objects.filter(account=wallet).count()


def check_ledger() -> str:
    out = StringIO()
    call_command("check_ledger", stdout=out)
    return out.getvalue()


@pytest.fixture
def paid_out(payee, alice, committed):
    """A merchant paid out once (the payout settled), then credited again."""
    credit_wallet(payee.merchant, 150_000)
    with committed():
        add_card(alice)
        call_command("run_payouts", stdout=StringIO())
    credit_wallet(payee.merchant, 40_000)
    return payee.merchant


def test_the_checkpoint_is_a_recurring_job_every_five_minutes(db):
    (spec,) = [s for s in declared() if s.name == "payments-ledger-checkpoint"]
    assert spec.func == "payments.ledger.tasks.checkpoint_balances"
    assert spec.minutes == 5


def test_balances_are_the_sums_before_any_checkpoint(paid_out):
    assert not LedgerBalance.objects.exists()
    assert_balances_are_the_sums(paid_out)


def test_balances_are_the_sums_across_checkpoint_boundaries(paid_out, committed):
    merchant = paid_out
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        checkpoint_balances()
    kept = LedgerBalance.objects.filter(account=wallet_account(merchant.public_id))
    assert kept.exists()
    assert_balances_are_the_sums(merchant)
    # Five minutes on (the schedule's next run): more lines, some before the
    # checkpoint and some after it.
    with time_machine.travel(start + timedelta(minutes=5), tick=False):
        credit_wallet(merchant, 60_000)
        assert_balances_are_the_sums(merchant)
        checkpoint_balances()
        credit_wallet(merchant, 25_000)
        assert_balances_are_the_sums(merchant)
    with time_machine.travel(start + timedelta(days=1), tick=False):
        set_payout_account(merchant)
        with committed():
            call_command("run_payouts", stdout=StringIO())
        assert_balances_are_the_sums(merchant)
        checkpoint_balances()
        assert_balances_are_the_sums(merchant)
    assert "clean" in check_ledger()


def test_a_checkpoint_with_nothing_new_changes_nothing(paid_out):
    first = balances_checkpoint()
    rows = list(LedgerBalance.objects.values_list("account", "balance", "line_count"))
    again = balances_checkpoint()
    assert again.through == first.through and again.keys == 0
    assert rows == list(
        LedgerBalance.objects.values_list("account", "balance", "line_count")
    )


def test_the_wallet_api_shows_the_kept_balances_and_count(paid_out, payee, api):
    balances_checkpoint()
    credit_wallet(paid_out, 10_000)
    response = api.get(
        f"/api/v1/merchant/{paid_out.public_id}/wallet?limit=2", **payee.headers
    )
    assert response.status_code == 200, response.content
    body = response.json()
    wallet = wallet_account(paid_out.public_id)
    assert body["total"] == LedgerLine.objects.filter(account=wallet).count() == 4
    assert body["data"]["available_balance"] == -summed(wallet)
    # Newest first: the collection posted after the checkpoint, then the one before.
    nets = [row["net"] for row in body["data"]["transactions"]]
    assert nets == [10_000 - 250, 40_000 - 1_000]
    page = api.get(
        f"/api/v1/merchant/{paid_out.public_id}/wallet?limit=2&offset=2",
        **payee.headers,
    ).json()
    assert [row["type"] for row in page["data"]["transactions"]] == [
        "payout",
        "collection",
    ]
    assert page["total"] == 4


def test_the_wallet_reads_in_a_fixed_number_of_queries(paid_out, payee, api):
    """However long the history: the balances and count in one statement, the
    page in one (plus the request's own: key, rate limit)."""
    url = f"/api/v1/merchant/{paid_out.public_id}/wallet"
    balances_checkpoint()
    with CaptureQueriesContext(connection) as few:
        api.get(url, **payee.headers)
    for n in range(30):
        credit_wallet(paid_out, 10_000 + n)
    balances_checkpoint()
    for n in range(5):
        credit_wallet(paid_out, 20_000 + n)
    with CaptureQueriesContext(connection) as many:
        api.get(url, **payee.headers)
    assert len(many) == len(few)
    lines = [q["sql"] for q in many if "payments_ledgerline" in q["sql"]]
    assert len(lines) == 2, lines
    assert all("COUNT(" not in sql.upper() or "ledgerbalance" in sql for sql in lines)


def test_check_ledger_fails_on_a_kept_balance_corrupted_and_names_the_account(
    paid_out,
):
    balances_checkpoint()
    assert "clean" in check_ledger()
    wallet = wallet_account(paid_out.public_id)
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE payments_ledgerbalance SET balance = balance - 1 "
            "WHERE account = %s AND kind = 'collection'",
            [wallet],
        )
    out = StringIO()
    with pytest.raises(CommandError) as failure:
        call_command("check_ledger", stdout=out)
    assert failure.value.returncode == 1
    assert f"kept balance of {wallet} (merchant #{paid_out.pk}'s collection" in (
        out.getvalue()
    )
    assert "[kept balances equal their lines]" in out.getvalue()


def test_check_ledger_fails_on_a_shared_account_row_corrupted(paid_out):
    balances_checkpoint()
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE payments_ledgerbalance SET line_count = line_count + 1 "
            "WHERE account = %s AND kind = 'collection'",
            [PLATFORM_FEES],
        )
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("check_ledger", stdout=out)
    assert f"kept balance of {PLATFORM_FEES} " in out.getvalue()


def test_check_ledger_fails_when_lines_before_the_checkpoint_were_left_out(
    paid_out,
):
    """A kept row deleted (or never written): the lines it should count are
    there, through the newest checkpoint, and counted nowhere."""
    balances_checkpoint()
    wallet = wallet_account(paid_out.public_id)
    LedgerBalance.objects.filter(account=wallet, kind="payout").delete()
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("check_ledger", stdout=out)
    assert f"kept balance of {wallet} (merchant #{paid_out.pk}'s payout lines)" in (
        out.getvalue()
    )


def _batch(merchant, count: int, tag: str) -> list[Collection]:
    customer = CustomerFactory()
    return [
        Collection(
            merchant_pk=merchant.pk,
            merchant_public_id=merchant.public_id,
            livemode=merchant.livemode,
            customer_pk=customer.pk,
            amount=10_000 + n,
            reference=f"inst_{tag}{n}",
            processor_reference=f"inst_{tag}{n}_a1",
            resource_type="installment",
            resource_id=f"inst_{tag}{n}",
        )
        for n in range(count)
    ]


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_checkpoint_never_skips_a_line_that_commits_after_a_higher_one(payee):
    """Ids are taken before commit: the batch below takes the lower line ids and
    commits last. A checkpoint taken while it is in flight must not cover the
    higher ids committed meanwhile, or its lines would be counted nowhere."""
    merchant = payee.merchant
    posted, go_on = threading.Event(), threading.Event()

    def slow_batch():
        try:
            with transaction.atomic():
                collections_post(_batch(merchant, 3, "slow"))
                posted.set()
                assert go_on.wait(30)
        finally:
            connection.close()

    slow = threading.Thread(target=slow_batch)
    slow.start()
    try:
        assert posted.wait(30)
        collections_post(_batch(merchant, 2, "fast"))  # higher ids, committed
        assert balances_checkpoint() is None  # the slow batch is in flight
    finally:
        go_on.set()
        slow.join(30)
    wallet = wallet_account(merchant.public_id)
    assert LedgerLine.objects.filter(account=wallet).count() == 5
    assert_balances_are_the_sums(merchant)
    assert balances_checkpoint().keys > 0
    assert_balances_are_the_sums(merchant)
    assert "clean" in check_ledger()
