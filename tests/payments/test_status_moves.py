"""Payments' statuses on the one state machine (config/models/state_machine.py):
the moves the services make, stamped, and the ones the maps refuse."""

from datetime import UTC, datetime

import pytest

from config.models import IllegalTransition
from payments.gateway.processors import RefundResult, get_processor
from payments.gateway.services.charges import refund_status_update
from payments.methods.services import mandates, revocation_handle
from payments.models import (
    BankMandate,
    CardSetup,
    LedgerTransaction,
    PaymentMethod,
    ProcessorCharge,
    ProcessorRefund,
    SandboxTransfer,
)

from .conftest import add_bank, add_card, initiate_mandate, mandate_step

pytestmark = pytest.mark.django_db

AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_a_revoked_method_can_be_deleted_and_a_deleted_one_never_moves(alice):
    bank = add_bank(alice)
    method = PaymentMethod.objects.get(public_id=bank["id"])
    revocation_handle(
        authorization_code=method.authorization_code,
        event="mandate.cancelled",
        source="webhook",
    )
    method.refresh_from_db()
    assert method.status == PaymentMethod.Status.REVOKED
    assert method.revoked_at is not None

    assert alice.delete(f"/api/v1/payment-methods/{bank['id']}").status_code == 200

    method.refresh_from_db()
    assert method.status == PaymentMethod.Status.DELETED
    assert method.revoked_at is not None and method.deleted_at is not None
    for target in (PaymentMethod.Status.ACTIVE, PaymentMethod.Status.REVOKED):
        with pytest.raises(IllegalTransition):
            method.transition_to(target)


def test_a_card_setup_that_succeeded_never_fails(alice):
    add_card(alice)
    setup = CardSetup.objects.get()
    assert setup.status == CardSetup.Status.SUCCEEDED
    assert setup.completed_at is not None

    with pytest.raises(IllegalTransition):
        setup.transition_to(CardSetup.Status.FAILED)


def test_the_fifth_wrong_otp_kills_only_a_mandate_in_progress(alice):
    reference = initiate_mandate(alice, "0123456780").json()["reference"]
    for _ in range(5):
        mandate_step(alice, "submit-otp", reference, otp="000000")

    mandate = BankMandate.objects.get(reference=reference)
    assert mandate.status == BankMandate.Status.DEAD
    assert mandate.failure_message == "5 wrong OTPs"
    assert mandate.completed_at is not None
    # The guarded UPDATE behind it: a mandate that ended otherwise stays so.
    saved = BankMandate.objects.get(
        reference=initiate_mandate(alice, "0123456781").json()["reference"]
    )
    saved.transition_to(BankMandate.Status.SUCCEEDED, at=AT)
    moved = BankMandate.transition_where(
        BankMandate.objects.filter(pk=saved.pk), BankMandate.Status.DEAD
    )
    saved.refresh_from_db()
    assert (moved, saved.status, saved.completed_at) == (
        0,
        BankMandate.Status.SUCCEEDED,
        AT,
    )


def test_a_success_after_a_taken_over_step_closed_the_mandate_still_saves_it(
    alice, monkeypatch
):
    """A step that outlived its claim brings the processor's success after the
    request that took the claim over failed the mandate: the money was taken,
    so the charge is recorded and the account saved (failed -> succeeded)."""
    reference = initiate_mandate(alice, "0123456780").json()["reference"]
    sandbox = get_processor()
    real_submit_otp = sandbox.submit_otp

    def closed_meanwhile(**kwargs):
        step = real_submit_otp(**kwargs)
        mandate = BankMandate.objects.get(reference=reference)
        mandates._close(mandate, "closed by the request that took over", None)
        return step

    monkeypatch.setattr(sandbox, "submit_otp", closed_meanwhile)

    response = mandate_step(alice, "submit-otp", reference, otp="123456")

    assert response.status_code == 200, response.content
    mandate = BankMandate.objects.get(reference=reference)
    assert mandate.status == BankMandate.Status.SUCCEEDED
    assert mandate.payment_method.public_id == response.json()["data"]["id"]
    assert ProcessorCharge.objects.get(reference=reference).status == "success"


@pytest.fixture
def pending_refund(alice, committed, monkeypatch) -> ProcessorRefund:
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
    return ProcessorRefund.objects.get()


def refund_news(refund: ProcessorRefund, status: str) -> RefundResult:
    return RefundResult(
        refund_id=refund.refund_id,
        transaction_reference=refund.charge.reference,
        amount=refund.amount,
        status=status,
    )


def test_a_refund_status_the_processor_does_not_document_is_no_news(pending_refund):
    refund = refund_status_update(
        refund_id=pending_refund.pk, result=refund_news(pending_refund, "lost")
    )
    assert refund.status == ProcessorRefund.Status.PENDING

    refund = refund_status_update(
        refund_id=pending_refund.pk,
        result=refund_news(pending_refund, "needs-attention"),
    )
    assert refund.status == ProcessorRefund.Status.NEEDS_ATTENTION
    refund = refund_status_update(
        refund_id=pending_refund.pk, result=refund_news(pending_refund, "processed")
    )

    refund.refresh_from_db()
    assert refund.status == ProcessorRefund.Status.PROCESSED
    assert LedgerTransaction.objects.filter(
        kind=LedgerTransaction.Kind.VERIFICATION_REFUND,
        reference=refund.charge.reference,
    ).exists()


def test_a_final_refund_never_moves(pending_refund):
    refund_status_update(
        refund_id=pending_refund.pk, result=refund_news(pending_refund, "failed")
    )
    pending_refund.refresh_from_db()

    for target in ProcessorRefund.Status:
        assert not pending_refund.can_transition_to(target)
    refund = refund_status_update(
        refund_id=pending_refund.pk, result=refund_news(pending_refund, "processed")
    )
    assert refund.status == ProcessorRefund.Status.FAILED


def test_a_settled_sandbox_transfer_never_moves_again():
    for status in (SandboxTransfer.Status.SUCCESS, SandboxTransfer.Status.FAILED):
        transfer = SandboxTransfer(status=status)
        assert not any(
            transfer.can_transition_to(target) for target in SandboxTransfer.Status
        )
