"""Payouts on the sandbox: wallet -> in transit -> settled or returned (DESIGN §8)."""

import hashlib
import hmac
import json
import re
from datetime import timedelta

import pytest
import time_machine
from django.db import transaction
from django.utils import timezone

from config.models import IllegalTransition
from config.schedules import declared
from payments.gateway.errors import ProcessorRefused, ProcessorTimeout
from payments.gateway.processors import TransferResult, get_processor
from payments.ledger import selectors
from payments.models import (
    LedgerTransaction,
    Payout,
    PayoutRecipient,
    ProcessorEvent,
    SandboxRecipient,
    SandboxTransfer,
)
from payments.payouts.services import (
    MINIMUM_PAYOUT,
    payout_create,
    payout_outcome_apply,
    payout_runs,
    payouts_run,
)
from webhooks.models import Event

from ..webhooks.conftest import SECRET, make_subscriber
from .commands import check_ledger, run_payouts
from .conftest import (
    PAYOUT_ACCOUNT_FAILS,
    credit_wallet,
    set_payout_account,
)

pytestmark = pytest.mark.django_db

Kind = LedgerTransaction.Kind


def balances(merchant) -> tuple[int, int, int]:
    wallet = selectors.wallet_balances(merchant)
    return wallet.available_balance, wallet.pending_payout, wallet.total_paid_out


def kinds(payout) -> list[str]:
    return sorted(
        LedgerTransaction.objects.filter(reference=payout.public_id).values_list(
            "kind", flat=True
        )
    )


def test_a_payout_runs_end_to_end_on_the_sandbox(
    receiver, fresh_cache, django_capture_on_commit_callbacks
):
    merchant = make_subscriber(receiver.url)
    set_payout_account(merchant)
    merchant.refresh_from_db()
    net = credit_wallet(merchant, 150_000) + credit_wallet(merchant, 100_001)
    assert net == 146_250 + 97_501
    assert balances(merchant) == (net, 0, 0)

    # The run asks the processor for the transfer; the sandbox settles it a
    # moment later, after the commit, like a real processor.
    with django_capture_on_commit_callbacks() as settlement:
        output = run_payouts()
    payout = Payout.objects.get()
    assert payout.public_id in output
    assert (payout.status, payout.amount) == ("processing", net)
    assert balances(merchant) == (0, net, 0)  # in transit
    assert kinds(payout) == [Kind.PAYOUT]
    assert receiver.received == []

    with django_capture_on_commit_callbacks(execute=True):
        for callback in settlement:
            callback()

    payout.refresh_from_db()
    assert payout.status == "paid" and payout.paid_at is not None
    assert balances(merchant) == (0, 0, net)  # settled
    assert kinds(payout) == [Kind.PAYOUT, Kind.PAYOUT_SETTLED]
    transfer = SandboxTransfer.objects.get()
    assert (transfer.reference, transfer.amount, transfer.status) == (
        payout.public_id,
        net,
        "success",
    )

    assert len(receiver.received) == 1
    delivered = receiver.received[0]
    envelope = json.loads(delivered.body)
    assert envelope["eventType"] == "transfer.success"
    assert envelope["merchantId"] == merchant.public_id
    assert envelope["data"] == {
        "resourceType": "payout",
        "resourceId": payout.public_id,
        "amount": net,
        "currency": "NGN",
        "reference": payout.public_id,
        "bankCode": "058",
        "accountLast4": "6780",
    }
    expected = hmac.new(SECRET.encode(), delivered.body, hashlib.sha256).hexdigest()
    assert delivered.headers["x-service-signature"] == expected
    # The sandbox settled it through the processor-event handler of endpoint 24.
    settled_by = ProcessorEvent.objects.get()
    assert (settled_by.kind, settled_by.key, settled_by.source) == (
        "transfer.success",
        payout.public_id,
        "sandbox",
    )
    assert "clean" in check_ledger()


def test_a_payout_to_an_account_ending_in_9_returns_the_money_to_the_wallet(
    payee, committed, receiver
):
    merchant = payee.merchant
    merchant.webhook_url, merchant.webhook_secret = receiver.url, SECRET
    merchant.save()
    set_payout_account(merchant, account_number=PAYOUT_ACCOUNT_FAILS)
    net = credit_wallet(merchant, 200_000)

    with committed():
        run_payouts()

    payout = Payout.objects.get()
    assert payout.status == "failed" and payout.failed_at is not None
    assert "9" in payout.failure_reason
    assert kinds(payout) == [Kind.PAYOUT, Kind.PAYOUT_RETURNED]
    assert balances(merchant) == (net, 0, 0)
    assert not Event.objects.filter(event_type="transfer.success").exists()
    assert receiver.received == []
    assert "clean" in check_ledger()


def test_the_transfer_reference_is_the_payout_id_in_paystack_form(payee, committed):
    credit_wallet(payee.merchant, 120_000)
    with committed():
        run_payouts()

    payout = Payout.objects.get()
    assert SandboxTransfer.objects.get().reference == payout.public_id
    # Paystack: 16-50 characters of lowercase letters, digits, '-' and '_'.
    assert re.fullmatch(r"po_[0-9a-z]{25}", payout.public_id)


def test_the_minimum_payout_is_100_000_kobo(payee, committed):
    # 102,563 collected nets 99,999; 102,564 nets exactly 100,000.
    assert credit_wallet(payee.merchant, 102_563) == MINIMUM_PAYOUT - 1
    with committed():
        run_payouts()
    assert not Payout.objects.exists()

    credit_wallet(payee.merchant, 1)  # one more kobo (no fee on 1 kobo)
    with committed():
        run_payouts()
    assert Payout.objects.get().amount == MINIMUM_PAYOUT


def test_without_a_payout_account_or_when_not_active_nothing_is_paid(
    merchant_active, payee, committed
):
    credit_wallet(merchant_active, 500_000)
    payee.merchant.status = "suspended"
    payee.merchant.save()
    credit_wallet(payee.merchant, 500_000)

    with committed():
        output = run_payouts()

    assert "0 payout(s) made" in output
    assert not Payout.objects.exists()
    assert payout_create(merchant=merchant_active) is None


def test_the_recipient_is_created_once_per_payout_account(
    payee, committed, monkeypatch
):
    sandbox = get_processor()
    created = []
    real = sandbox.create_transfer_recipient

    def counting(**kwargs):
        created.append(kwargs)
        return real(**kwargs)

    monkeypatch.setattr(sandbox, "create_transfer_recipient", counting)
    for _ in range(2):
        credit_wallet(payee.merchant, 150_000)
        with committed():
            run_payouts()

    assert Payout.objects.filter(status="paid").count() == 2
    assert len(created) == 1
    assert PayoutRecipient.objects.count() == SandboxRecipient.objects.count() == 1
    recipient = PayoutRecipient.objects.get()
    assert {payout.recipient for payout in Payout.objects.all()} == {recipient}
    assert recipient.account_name == "SANDBOX ACCOUNT 6780"


@pytest.fixture
def sandbox():
    return get_processor()


def test_a_request_whose_answer_was_lost_is_verified_not_sent_again(
    payee, committed, sandbox, monkeypatch
):
    """The transfer reached the processor, the reply did not: the next run finds
    it by its reference and does not ask for a second transfer."""
    real_transfer = sandbox.transfer
    calls = []

    def reply_lost(**kwargs):
        calls.append(kwargs["reference"])
        real_transfer(**kwargs)
        raise ProcessorTimeout()

    monkeypatch.setattr(sandbox, "transfer", reply_lost)
    net = credit_wallet(payee.merchant, 300_000)
    with committed():
        run_payouts()
    payout = Payout.objects.get()
    assert payout.status == "pending" and payout.transfer_requests == 1
    assert balances(payout.merchant) == (0, net, 0)

    with committed():
        run_payouts()  # too early: the request may still be under way
    assert len(calls) == 1

    with time_machine.travel(timezone.now() + timedelta(minutes=11)), committed():
        output = run_payouts()

    assert "1 open payout(s) rechecked" in output
    payout.refresh_from_db()
    assert payout.status == "paid"
    assert calls == [payout.public_id]
    assert SandboxTransfer.objects.count() == 1
    assert balances(payout.merchant) == (0, 0, net)
    assert "clean" in check_ledger()


def test_a_request_that_never_arrived_is_sent_again_with_the_same_reference(
    payee, committed, sandbox, monkeypatch
):
    real_transfer = sandbox.transfer
    calls = []

    def flaky(**kwargs):
        calls.append(kwargs["reference"])
        if len(calls) == 1:
            raise ProcessorTimeout()
        return real_transfer(**kwargs)

    monkeypatch.setattr(sandbox, "transfer", flaky)
    credit_wallet(payee.merchant, 300_000)
    with committed():
        run_payouts()
    payout = Payout.objects.get()
    assert payout.status == "pending"

    with time_machine.travel(timezone.now() + timedelta(minutes=11)), committed():
        run_payouts()

    payout.refresh_from_db()
    assert payout.status == "paid" and payout.transfer_requests == 2
    assert calls == [payout.public_id, payout.public_id]
    assert SandboxTransfer.objects.count() == 1


def test_the_processor_refuses_a_second_transfer_with_the_same_reference(
    payee, committed, sandbox
):
    credit_wallet(payee.merchant, 300_000)
    with committed():
        run_payouts()
    payout = Payout.objects.get()

    with pytest.raises(ProcessorRefused, match="Duplicate"):
        sandbox.transfer(
            amount=payout.amount,
            recipient_code=payout.recipient.recipient_code,
            reference=payout.public_id,
            reason="again",
        )
    assert SandboxTransfer.objects.count() == 1


def test_a_refused_transfer_returns_the_money_to_the_wallet(
    payee, committed, sandbox, monkeypatch
):
    def refuse(**kwargs):
        raise ProcessorRefused(
            "refused", processor_message="Your balance is not enough to fulfil"
        )

    monkeypatch.setattr(sandbox, "transfer", refuse)
    net = credit_wallet(payee.merchant, 300_000)
    with committed():
        run_payouts()

    payout = Payout.objects.get()
    assert payout.status == "failed"
    assert payout.failure_reason == "Your balance is not enough to fulfil"
    assert balances(payout.merchant) == (net, 0, 0)
    assert "clean" in check_ledger()


def test_a_reversal_after_payment_returns_the_money_to_the_wallet(payee, committed):
    net = credit_wallet(payee.merchant, 300_000)
    with committed():
        run_payouts()
    payout = Payout.objects.get(status="paid")

    reversed_ = TransferResult(
        reference=payout.public_id, status="reversed", amount=payout.amount
    )
    assert payout_outcome_apply(payout_id=payout.pk, result=reversed_) == "reversed"
    assert payout_outcome_apply(payout_id=payout.pk, result=reversed_).startswith(
        "already"
    )

    payout.refresh_from_db()
    assert payout.status == "reversed" and payout.reversed_at is not None
    assert kinds(payout) == [Kind.PAYOUT, Kind.PAYOUT_RETURNED, Kind.PAYOUT_SETTLED]
    assert balances(payout.merchant) == (net, 0, 0)
    assert "clean" in check_ledger()


def test_an_outcome_for_another_amount_is_refused(
    payee, django_capture_on_commit_callbacks
):
    credit_wallet(payee.merchant, 300_000)
    with django_capture_on_commit_callbacks():
        run_payouts()
    payout = Payout.objects.get()

    with pytest.raises(ValueError, match="is for"), transaction.atomic():
        payout_outcome_apply(
            payout_id=payout.pk,
            result=TransferResult(
                reference=payout.public_id, status="success", amount=1
            ),
        )
    payout.refresh_from_db()
    assert payout.status == "processing"


@pytest.mark.parametrize(
    "start, target",
    [
        ("paid", "pending"),
        ("paid", "failed"),
        ("failed", "paid"),
        ("failed", "processing"),
        ("reversed", "paid"),
        ("processing", "pending"),
        ("processing", "reversed"),
    ],
)
def test_the_payout_state_machine_refuses_illegal_moves(payee, start, target):
    payout = Payout.objects.create(
        merchant=payee.merchant,
        amount=MINIMUM_PAYOUT,
        bank_code="058",
        account_number="0123456780",
        processor="sandbox",
        status=start,
    )
    with pytest.raises(IllegalTransition):
        payout.transition_to(target)
    payout.refresh_from_db()
    assert payout.status == start


def test_each_legal_move_is_stamped(payee):
    payout = Payout.objects.create(
        merchant=payee.merchant,
        amount=MINIMUM_PAYOUT,
        bank_code="058",
        account_number="0123456780",
        processor="sandbox",
    )
    for status, stamp in [
        ("processing", "processing_at"),
        ("paid", "paid_at"),
        ("reversed", "reversed_at"),
    ]:
        payout.transition_to(status)
        payout.refresh_from_db()
        assert payout.status == status
        assert getattr(payout, stamp) is not None


def test_one_merchants_failure_does_not_stop_the_run(
    payee, other_merchant_with_key, committed, monkeypatch
):
    set_payout_account(other_merchant_with_key.merchant)
    credit_wallet(payee.merchant, 300_000)
    credit_wallet(other_merchant_with_key.merchant, 300_000)
    real = payout_runs.payout_create

    def broken_for_payee(*, merchant):
        if merchant.pk == payee.merchant.pk:
            raise RuntimeError("boom")
        return real(merchant=merchant)

    monkeypatch.setattr(payout_runs, "payout_create", broken_for_payee)
    with committed():
        run = payouts_run()

    assert run.errors == 1 and len(run.created) == 1
    assert Payout.objects.get().merchant == other_merchant_with_key.merchant


def test_run_payouts_can_be_limited_to_one_merchant(
    payee, other_merchant_with_key, committed
):
    set_payout_account(other_merchant_with_key.merchant)
    credit_wallet(payee.merchant, 300_000)
    credit_wallet(other_merchant_with_key.merchant, 300_000)

    with committed():
        run_payouts(merchants=[payee.merchant.public_id])

    assert Payout.objects.get().merchant == payee.merchant


def test_payouts_run_daily_from_a_declared_schedule():
    spec = {spec.name: spec for spec in declared()}["payments-run-payouts"]

    assert spec.func == "payments.payouts.tasks.run_payouts"
    assert spec.schedule_type == "D"
