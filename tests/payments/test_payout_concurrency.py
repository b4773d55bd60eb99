"""Two payout runs at once pay each merchant once (PostgreSQL row locks)."""

import threading
from io import StringIO
from unittest.mock import patch

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from rest_framework.test import APIClient

from payments.ledger import selectors
from payments.models import (
    InboundRequest,
    LedgerLine,
    Payout,
    ProcessorEvent,
    SandboxTransfer,
)
from payments.payouts.services import payouts
from webhooks.models import Event

from ..concurrency import run_concurrently
from ..conftest import make_merchant_with_key
from .conftest import credit_wallet, postgres_only, set_payout_account, signed_post


@pytest.fixture
def widened_race(monkeypatch):
    """The first run to read a wallet waits (up to 1 s) for a second one to read
    it too. Without the merchant's row lock both would read the same balance and
    both pay it; with it the second cannot read before the first commits."""
    arrived = threading.Event()
    real = payouts.payout_selectors.wallet_lines_unpaid

    def reading(merchant):
        balance = real(merchant)
        if arrived.is_set():
            return balance
        arrived.set()
        second = threading.Event()
        second.wait(1)
        return balance

    monkeypatch.setattr(payouts.payout_selectors, "wallet_lines_unpaid", reading)


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_two_run_payouts_at_once_pay_each_merchant_once(widened_race):
    merchants = []
    for _ in range(3):
        merchant = make_merchant_with_key().merchant
        set_payout_account(merchant)
        credit_wallet(merchant, 250_000)
        merchants.append(merchant)

    results = run_concurrently(
        lambda: call_command("run_payouts", stdout=StringIO()), 2
    )

    assert [r for r in results if isinstance(r, Exception)] == []
    assert Payout.objects.count() == 3
    assert SandboxTransfer.objects.count() == 3
    for merchant in merchants:
        payout = Payout.objects.get(merchant=merchant)
        assert payout.status == "paid"
        assert payout.amount == 243_750
        assert selectors.wallet_balances(merchant) == selectors.WalletBalances(
            available_balance=0, pending_payout=0, total_paid_out=243_750
        )
    out = StringIO()
    call_command("check_ledger", stdout=out)
    assert "clean" in out.getvalue()


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_the_same_transfer_event_arriving_four_times_at_once_settles_once():
    merchant = make_merchant_with_key().merchant
    set_payout_account(merchant)
    credit_wallet(merchant, 250_000)
    # Hold the sandbox's own settlement back: the webhooks settle the payout.
    with patch.object(payouts.transaction, "on_commit"):
        payout = payouts.payout_create(merchant=merchant)
        payouts.payout_transfer_request(payout_id=payout.pk)
    payout.refresh_from_db()
    assert payout.status == "processing"
    event = {
        "event": "transfer.success",
        "data": {"reference": payout.public_id, "amount": payout.amount},
    }

    replies = run_concurrently(
        lambda: signed_post(APIClient(), "/api/v1/webhooks/paystack", event), 4
    )

    assert [reply.status_code for reply in replies] == [200] * 4
    payout.refresh_from_db()
    assert payout.status == "paid"
    assert ProcessorEvent.objects.count() == 1
    assert Event.objects.filter(event_type="transfer.success").count() == 1
    assert sorted(InboundRequest.objects.values_list("outcome", flat=True)) == [
        "duplicate"
    ] * 3 + ["handled"]
    out = StringIO()
    call_command("check_ledger", stdout=out)
    assert "clean" in out.getvalue()


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_a_collection_committing_while_a_payout_is_made_waits_for_the_next_one():
    """A collection's line is written (its id taken) before the payout reads the
    wallet and committed after: the payout neither pays it nor lists it, though
    its id is below the payout's own (a "last line id" mark would claim it);
    the next payout pays and lists it, and each report adds up to its payout."""
    merchant = make_merchant_with_key().merchant
    set_payout_account(merchant)
    credit_wallet(merchant, 200_000, reference="inst_early_a1")  # net 195,000
    posted, payout_made = threading.Event(), threading.Event()

    def collect_across_the_payout():
        try:
            with transaction.atomic():
                credit_wallet(merchant, 50_000, reference="inst_late_a1")
                posted.set()
                payout_made.wait(10)
        finally:
            connection.close()

    collector = threading.Thread(target=collect_across_the_payout)
    collector.start()
    assert posted.wait(10)
    first = payouts.payout_create(merchant=merchant)
    payout_made.set()
    collector.join(10)

    late = LedgerLine.objects.get(
        transaction__reference="inst_late", account__startswith="merchant_wallet:"
    )
    own = LedgerLine.objects.get(
        transaction__reference=first.public_id,
        transaction__kind="payout",
        account__startswith="merchant_wallet:",
    )
    assert late.pk < own.pk
    assert first.amount == 195_000
    first_lines = {item.line_id for item in first.items.all()}
    assert len(first_lines) == 1
    assert late.pk not in first_lines
    assert selectors.wallet_available_balance(merchant) == 48_750

    credit_wallet(merchant, 60_000, reference="inst_next_a1")  # net 58,500
    second = payouts.payout_create(merchant=merchant)

    assert second.amount == 48_750 + 58_500
    assert late.pk in {item.line_id for item in second.items.all()}
    for payout in (first, second):
        lines = LedgerLine.objects.filter(payout_items__payout=payout)
        assert -sum(line.amount for line in lines) == payout.amount
    out = StringIO()
    call_command("check_ledger", stdout=out)
    assert "clean" in out.getvalue()
