"""Endpoint 24 `POST /api/v1/webhooks/paystack`: HMAC-SHA512 checked first,
the signed raw request stored, each event handled once, money moved only on a
verified reference."""

import hashlib
import json
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone
from rest_framework.test import APIClient

from config.schedules import declared
from payments.gateway.hooks import (
    register_charge_confirmation_handler,
    unregister_charge_confirmation_handler,
)
from payments.gateway.processors import RefundResult, TransferResult, get_processor
from payments.gateway.services import paystack_events_retry
from payments.gateway.services.inbound import signature_for
from payments.ledger import selectors
from payments.models import (
    InboundRequest,
    LedgerTransaction,
    PaymentMethod,
    Payout,
    ProcessorEvent,
    ProcessorRefund,
)
from webhooks.models import Event

from .conftest import (
    PAYOUT_ACCOUNT_FAILS,
    add_card,
    credit_wallet,
    set_payout_account,
    signed_post,
)

pytestmark = pytest.mark.django_db

URL = "/api/v1/webhooks/paystack"


def post_event(payload, **kwargs):
    return signed_post(APIClient(), URL, payload, **kwargs)


def transfer_event(payout, event="transfer.success") -> dict:
    return {
        "event": event,
        "data": {
            "amount": payout.amount,
            "currency": "NGN",
            "reference": payout.public_id,
            "status": event.split(".")[1],
            "transfer_code": "TRF_from_event",
            "recipient": {"details": {"account_number": payout.account_number}},
        },
    }


@pytest.fixture
def payout_in_flight(payee, django_capture_on_commit_callbacks):
    """A payout the processor accepted and has not settled (the sandbox's own
    settlement task is held back, so the webhook is what settles it)."""
    credit_wallet(payee.merchant, 200_000)
    with django_capture_on_commit_callbacks():
        call_command("run_payouts", stdout=StringIO())
    payout = Payout.objects.get()
    assert payout.status == "processing"
    return payout


def check_ledger_clean() -> bool:
    out = StringIO()
    call_command("check_ledger", stdout=out)
    return "clean" in out.getvalue()


@pytest.mark.parametrize("signature", [None, "", "00" * 64, "not-hex"])
def test_a_missing_or_bad_signature_is_401_and_only_a_small_record_is_kept(
    payout_in_flight, signature
):
    body = json.dumps(transfer_event(payout_in_flight)).encode()

    response = post_event(body, signature=signature)

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_signature"
    stored = InboundRequest.objects.get(endpoint="paystack")
    # Anyone can send these: the body is not kept, only its size and digest.
    assert bytes(stored.body) == b""
    assert stored.body_size == len(body)
    assert stored.body_sha256 == hashlib.sha256(body).hexdigest()
    assert stored.signature_valid is False
    payout_in_flight.refresh_from_db()
    assert payout_in_flight.status == "processing"
    assert not ProcessorEvent.objects.exists()


def test_a_signature_over_other_bytes_is_401(payout_in_flight):
    body = json.dumps(transfer_event(payout_in_flight)).encode()
    tampered = body.replace(b"TRF_from_event", b"TRF_from_evil")

    response = APIClient().post(
        URL,
        tampered,
        content_type="application/json",
        HTTP_X_PAYSTACK_SIGNATURE=signature_for(body),
    )

    assert response.status_code == 401


def test_transfer_success_settles_the_payout_once_however_often_it_arrives(
    payout_in_flight, committed
):
    with committed():
        replies = [post_event(transfer_event(payout_in_flight)) for _ in range(3)]

    assert [reply.status_code for reply in replies] == [200, 200, 200]
    assert replies[0].json() == {"ok": True, "message": "accepted"}
    payout_in_flight.refresh_from_db()
    assert payout_in_flight.status == "paid"
    kinds = LedgerTransaction.objects.filter(
        reference=payout_in_flight.public_id
    ).values_list("kind", flat=True)
    assert sorted(kinds) == ["payout", "payout_settled"]
    assert Event.objects.filter(event_type="transfer.success").count() == 1
    handled = ProcessorEvent.objects.get()
    assert (handled.kind, handled.key, handled.source) == (
        "transfer.success",
        payout_in_flight.public_id,
        "webhook",
    )
    assert handled.note == "verified success: payout paid"
    outcomes = list(
        InboundRequest.objects.order_by("pk").values_list("outcome", flat=True)
    )
    assert outcomes == ["handled", "duplicate", "duplicate"]
    assert check_ledger_clean()


def test_the_processors_verified_status_wins_over_what_the_event_says(
    payee, django_capture_on_commit_callbacks, committed
):
    set_payout_account(payee.merchant, account_number=PAYOUT_ACCOUNT_FAILS)
    net = credit_wallet(payee.merchant, 200_000)
    with django_capture_on_commit_callbacks():
        call_command("run_payouts", stdout=StringIO())
    payout = Payout.objects.get()

    # A (signed) event claims success; verify says the transfer failed.
    with committed():
        post_event(transfer_event(payout, "transfer.success"))

    payout.refresh_from_db()
    assert payout.status == "failed"
    assert not Event.objects.filter(event_type="transfer.success").exists()
    assert selectors.wallet_available_balance(payout.merchant) == net
    assert check_ledger_clean()


@pytest.mark.parametrize("event", ["transfer.failed", "transfer.reversed"])
def test_a_failed_or_reversed_transfer_returns_the_money(
    payout_in_flight, monkeypatch, event
):
    sandbox = get_processor()
    status = event.split(".")[1]

    def verified(*, reference):
        return TransferResult(
            reference=reference, status=status, amount=payout_in_flight.amount
        )

    monkeypatch.setattr(sandbox, "verify_transfer", verified)
    post_event(transfer_event(payout_in_flight, event))

    payout_in_flight.refresh_from_db()
    assert payout_in_flight.status == "failed"
    assert payout_in_flight.failure_reason == f"Transfer {status} at the processor"
    wallet = selectors.wallet_balances(payout_in_flight.merchant)
    assert (wallet.available_balance, wallet.pending_payout) == (
        payout_in_flight.amount,
        0,
    )
    assert check_ledger_clean()


def test_nothing_moves_while_the_processor_does_not_confirm(
    payout_in_flight, monkeypatch
):
    sandbox = get_processor()

    def still_pending(*, reference):
        return TransferResult(
            reference=reference, status="pending", amount=payout_in_flight.amount
        )

    monkeypatch.setattr(sandbox, "verify_transfer", still_pending)
    response = post_event(transfer_event(payout_in_flight))

    assert response.status_code == 200
    payout_in_flight.refresh_from_db()
    assert payout_in_flight.status == "processing"
    assert not ProcessorEvent.objects.exists()
    stored = InboundRequest.objects.get()
    assert stored.outcome == "" and "processor says pending" in stored.error

    # Later the processor confirms; the retry pass handles the stored event.
    monkeypatch.undo()
    with time_machine.travel(timezone.now() + timedelta(minutes=6)):
        assert paystack_events_retry() == 1
    payout_in_flight.refresh_from_db()
    assert payout_in_flight.status == "paid"
    stored.refresh_from_db()
    assert (stored.outcome, stored.error) == ("handled", "")


def test_an_event_for_no_payout_is_ignored(db):
    response = post_event(
        {"event": "transfer.success", "data": {"reference": "po_nothing_here_0000"}}
    )

    assert response.status_code == 200
    assert (
        InboundRequest.objects.get().outcome == "ignored: no payout has this reference"
    )


def test_an_event_this_endpoint_does_not_act_on_is_ignored(db):
    response = post_event({"event": "subscription.create", "data": {}})

    assert response.status_code == 200
    assert InboundRequest.objects.get().outcome.startswith("ignored")


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[1, 2]",
        json.dumps({"event": 5, "data": {}}).encode(),
        json.dumps({"event": "transfer.success"}).encode(),
        json.dumps({"event": "charge.success", "data": [1]}).encode(),
    ],
)
def test_a_signed_body_that_is_not_an_event_is_refused_and_kept_with_its_error(
    db, body
):
    response = post_event(body)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_request"
    stored = InboundRequest.objects.get()
    assert stored.signature_valid is True
    assert "InvalidRequest" in stored.error
    assert stored.outcome.startswith("refused: ")
    with time_machine.travel(timezone.now() + timedelta(minutes=6)):
        assert paystack_events_retry() == 0


def test_transfer_events_need_a_reference_and_are_not_retried_without_one(db):
    response = post_event({"event": "transfer.success", "data": {"amount": 1}})

    assert response.status_code == 200
    stored = InboundRequest.objects.get()
    assert "data.reference" in stored.error
    assert stored.outcome.startswith("refused: ")
    assert stored.processed_at is not None
    with time_machine.travel(timezone.now() + timedelta(minutes=6)):
        assert paystack_events_retry() == 0


def test_nul_characters_in_an_event_are_answered_and_stored_without_them(db):
    """JSON may carry "\\u0000"; PostgreSQL text may not (a 500 found by the fuzzer)."""
    response = post_event({"event": "transfer.\x00success", "data": []})

    assert response.status_code == 400
    assert InboundRequest.objects.get().event == "transfer.success"


def test_a_reference_with_a_nul_character_is_refused_not_retried(db):
    response = post_event(
        {"event": "transfer.success", "data": {"reference": "po_\x00nothing"}}
    )

    assert response.status_code == 200
    stored = InboundRequest.objects.get()
    assert "NUL" in stored.error
    assert stored.outcome.startswith("refused: ")
    with time_machine.travel(timezone.now() + timedelta(minutes=6)):
        assert paystack_events_retry() == 0


# charge.success ------------------------------------------------------------------


@pytest.fixture
def pending_charge(alice):
    """A charge made on a saved card (as the auto-debit engine makes them)."""
    add_card(alice)
    sandbox = get_processor()
    method = PaymentMethod.objects.get()
    result = sandbox.charge_authorization(
        email=alice.customer.email,
        amount=58_334,
        authorization_code=method.authorization_code,
        reference="inst_pending_a1",
    )
    assert result.succeeded
    return result


def charge_event(reference="inst_pending_a1") -> dict:
    return {
        "event": "charge.success",
        "data": {"reference": reference, "amount": 58_334, "status": "success"},
    }


def test_charge_success_without_a_handler_is_recorded_with_a_note(pending_charge):
    post_event(charge_event())
    post_event(charge_event())

    handled = ProcessorEvent.objects.get()
    assert (handled.kind, handled.key) == ("charge.success", "inst_pending_a1")
    assert handled.note == "no charge confirmation handler is registered"
    assert list(
        InboundRequest.objects.order_by("pk").values_list("outcome", flat=True)
    ) == ["handled", "duplicate"]


def test_charge_success_reaches_the_registered_handler_once_with_verified_values(
    pending_charge,
):
    seen = []

    def confirm(charge):
        seen.append(charge)
        return charge.reference == "inst_pending_a1"

    register_charge_confirmation_handler(confirm)
    try:
        event = charge_event()
        event["data"]["amount"] = 1  # the event's own amount is not trusted
        post_event(event)
        post_event(event)
    finally:
        unregister_charge_confirmation_handler(confirm)

    [charge] = seen
    assert (charge.reference, charge.amount, charge.currency) == (
        "inst_pending_a1",
        58_334,
        "NGN",
    )
    assert charge.source == "webhook"
    assert ProcessorEvent.objects.get().note.startswith("confirmed by ")


def test_a_handler_that_fails_leaves_the_event_to_be_handled_again(pending_charge):
    calls = []

    def broken(charge):
        calls.append(charge)
        if len(calls) == 1:
            raise RuntimeError("database hiccup")
        return True

    register_charge_confirmation_handler(broken)
    try:
        assert post_event(charge_event()).status_code == 200
        assert not ProcessorEvent.objects.exists()
        assert "database hiccup" in InboundRequest.objects.get().error

        post_event(charge_event())  # Paystack's redelivery, or the retry pass
    finally:
        unregister_charge_confirmation_handler(broken)

    assert len(calls) == 2
    assert ProcessorEvent.objects.count() == 1


def test_charge_success_for_an_unknown_reference_is_ignored(db):
    post_event(charge_event("inst_nobody_a1"))

    assert InboundRequest.objects.get().outcome.startswith("ignored: the processor")
    assert not ProcessorEvent.objects.exists()


# refund.processed ----------------------------------------------------------------


def test_refund_processed_marks_a_pending_refund_and_posts_it_once(
    alice, committed, monkeypatch
):
    sandbox = get_processor()
    real_refund = sandbox.refund

    def pending(**kwargs):
        done = real_refund(**kwargs)
        return RefundResult(
            refund_id=done.refund_id,
            transaction_reference=done.transaction_reference,
            amount=done.amount,
            status="pending",
        )

    monkeypatch.setattr(sandbox, "refund", pending)
    with committed():
        add_card(alice)
    refund = ProcessorRefund.objects.get()
    assert refund.status == "pending"
    event = {
        "event": "refund.processed",
        "data": {
            "status": "processed",
            "transaction_reference": refund.charge.reference,
            "amount": "5000",
        },
    }

    post_event(event)
    post_event(event)

    refund.refresh_from_db()
    assert refund.status == "processed"
    assert (
        LedgerTransaction.objects.filter(
            kind="verification_refund", reference=refund.charge.reference
        ).count()
        == 1
    )
    assert ProcessorEvent.objects.get().kind == "refund.processed"
    assert check_ledger_clean()


def test_the_retry_pass_is_a_declared_schedule():
    names = {spec.name: spec for spec in declared()}

    assert names["payments-retry-paystack-events"].func == (
        "payments.gateway.tasks.retry_paystack_events"
    )
