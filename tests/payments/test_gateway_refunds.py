"""Refunds through the processor under our own references (DESIGN section 14),
with the sandbox: asked once however often the caller retries, pending until the
sandbox's settlement pass, the refunds-fail card, the poll, and the registry of
refund handlers."""

from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.utils import timezone

from config.schedules import declared
from payments.gateway.errors import ProcessorError, ProcessorRefused, ProcessorTimeout
from payments.gateway.hooks import register_refund_handler, unregister_refund_handler
from payments.gateway.processors import (
    RefundResult,
    get_processor,
    verification_refund_reference,
)
from payments.gateway.services import (
    RefundOutcome,
    processor_refund_check,
    processor_refund_request,
    sandbox_refunds_settle,
    verification_refund,
    verification_refunds_retry,
)
from payments.gateway.services.refunds import refund_outcome_dispatch
from payments.gateway.tasks import sandbox_refunds_settle as settle_task
from payments.models import (
    LedgerTransaction,
    ProcessorCharge,
    ProcessorEvent,
    ProcessorRefund,
    SandboxRefund,
)

from ..concurrency import run_concurrently
from .conftest import CARD_REFUNDS_FAIL, COLLECTED, add_card, collect, postgres_only

pytestmark = pytest.mark.django_db


def ask(reference="rf_abc_1", transaction_reference="inst_1_a1", amount=100_000):
    return processor_refund_request(
        reference=reference,
        transaction_reference=transaction_reference,
        amount=amount,
        note="Returned phone",
    )


def mine(outcomes, reference="rf_abc_1"):
    return [o for o in outcomes if o.reference == reference]


def test_a_refund_keeps_our_reference_and_is_pending_until_the_pass(collection):
    outcome = ask()

    assert outcome.reference == "rf_abc_1"
    assert outcome.transaction_reference == collection
    assert (outcome.amount, outcome.status, outcome.processor_status) == (
        100_000,
        "pending",
        "pending",
    )
    row = SandboxRefund.objects.get()
    assert (row.merchant_note, row.status) == ("rf_abc_1", "pending")
    assert outcome.refund_id == f"sbx_refund_{row.pk}"
    fetched = get_processor().fetch_refund(refund_id=outcome.refund_id)
    assert (fetched.status, fetched.merchant_note) == ("pending", "rf_abc_1")


def test_a_lost_answer_then_a_retry_makes_one_refund(collection, monkeypatch):
    sandbox = get_processor()
    real_refund = sandbox.refund
    asked = []

    def answer_lost(**kwargs):
        asked.append(kwargs)
        real_refund(**kwargs)
        raise ProcessorTimeout()

    monkeypatch.setattr(sandbox, "refund", answer_lost)
    with pytest.raises(ProcessorTimeout):
        ask()

    again = ask()
    third = ask()

    assert len(asked) == 1  # the retries found it, they did not ask again
    assert asked[0]["merchant_note"] == "rf_abc_1"
    assert SandboxRefund.objects.count() == 1
    assert again == third
    assert (again.reference, again.amount, again.status) == (
        "rf_abc_1",
        100_000,
        "pending",
    )


def test_a_refusal_after_a_lost_answer_finds_the_refund_the_list_did_not_show(
    collection, monkeypatch
):
    """The lost request took the whole collection but the processor's list lags:
    the new request is refused ("fully reversed"), and the gateway looks again."""
    sandbox = get_processor()
    real_refund, real_list = sandbox.refund, sandbox.list_refunds

    def answer_lost(**kwargs):
        real_refund(**kwargs)
        raise ProcessorError()

    monkeypatch.setattr(sandbox, "refund", answer_lost)
    with pytest.raises(ProcessorError):
        ask(amount=COLLECTED)
    monkeypatch.setattr(sandbox, "refund", real_refund)
    lists = []

    def lagging(**kwargs):
        lists.append(kwargs)
        return [] if len(lists) == 1 else real_list(**kwargs)

    monkeypatch.setattr(sandbox, "list_refunds", lagging)

    outcome = ask(amount=COLLECTED)

    assert (outcome.reference, outcome.amount) == ("rf_abc_1", COLLECTED)
    assert len(lists) == 2
    assert SandboxRefund.objects.count() == 1


def test_a_refund_past_what_the_collection_has_left_is_refused(collection):
    ask("rf_a_1", amount=200_000)

    with pytest.raises(ProcessorRefused) as error:
        ask("rf_b_1", amount=60_000)

    assert "more than what is left" in error.value.processor_message
    assert ask("rf_b_1", amount=50_000).status == "pending"
    with pytest.raises(ProcessorRefused) as error:
        ask("rf_c_1", amount=1)
    assert "fully reversed" in error.value.processor_message
    with pytest.raises(ProcessorRefused):
        ask("rf_d_1", transaction_reference="inst_unknown_a1")
    assert SandboxRefund.objects.count() == 2


def test_a_request_needs_a_reference_and_a_positive_amount(collection):
    for bad in ({"reference": ""}, {"amount": 0}, {"reference": "x" * 256}):
        with pytest.raises(ValueError):
            ask(**{"reference": "rf_abc_1", "amount": 1, **bad})
    assert not SandboxRefund.objects.exists()


def test_a_refund_of_a_charge_of_the_refunds_fail_card_fails(alice, seen):
    reference = collect(alice, CARD_REFUNDS_FAIL, "inst_9_a1")

    outcome = ask(transaction_reference=reference, amount=COLLECTED)

    assert (outcome.status, outcome.processor_status) == ("failed", "failed")
    # A failed refund gave nothing back: the collection can be refunded again.
    assert SandboxRefund.objects.get().status == "failed"
    assert sandbox_refunds_settle() == 1
    assert [(o.reference, o.status) for o in seen] == [("rf_abc_1", "failed")]
    assert SandboxRefund.objects.get().status == "failed"  # never processed
    assert ask("rf_abc_2", reference, COLLECTED).status == "failed"


def test_the_refunds_fail_card_is_saved_and_its_verification_charge_given_back(
    alice, committed
):
    with committed():
        card = add_card(alice, CARD_REFUNDS_FAIL)

    assert card["label"] == "Visa •••• 5408"
    assert ProcessorRefund.objects.get().status == "processed"
    out = StringIO()
    call_command("check_ledger", stdout=out)
    assert "clean" in out.getvalue()


def test_the_pass_settles_pending_refunds_and_calls_the_handlers_once(collection, seen):
    first, second = ask("rf_a_1", amount=100_000), ask("rf_b_1", amount=50_000)

    assert sandbox_refunds_settle() == 2
    assert sandbox_refunds_settle() == 0
    assert settle_task() == 0

    assert sorted((o.reference, o.status, o.amount) for o in seen) == [
        ("rf_a_1", "processed", 100_000),
        ("rf_b_1", "processed", 50_000),
    ]
    assert {o.refund_id for o in seen} == {first.refund_id, second.refund_id}
    assert set(SandboxRefund.objects.values_list("status", flat=True)) == {"processed"}
    assert ProcessorEvent.objects.filter(kind="refund.processed").count() == 2
    # The poll now finds them processed; asking again returns the same refund.
    assert processor_refund_check(
        reference="rf_a_1", transaction_reference=collection
    ) == RefundOutcome(
        reference="rf_a_1",
        transaction_reference=collection,
        refund_id=first.refund_id,
        amount=100_000,
        status="processed",
        processor_status="processed",
    )
    assert ask("rf_a_1").status == "processed"
    assert SandboxRefund.objects.count() == 2


def test_a_handler_that_fails_leaves_the_refund_to_the_next_pass(collection, seen):
    ask()
    calls = []

    def broken(outcome):
        calls.append(outcome)
        if len(calls) == 1:
            raise RuntimeError("database hiccup")
        return False

    register_refund_handler(broken)
    try:
        assert sandbox_refunds_settle() == 0
        assert SandboxRefund.objects.get().announced_at is None
        assert not ProcessorEvent.objects.exists()

        assert sandbox_refunds_settle() == 1
    finally:
        unregister_refund_handler(broken)

    assert len(calls) == 2
    assert [(o.reference, o.status) for o in seen] == [
        ("rf_abc_1", "processed"),  # rolled back with the broken handler's call
        ("rf_abc_1", "processed"),
    ]
    assert sandbox_refunds_settle() == 0


def test_the_pass_announces_refunds_for_three_days_only(collection, seen):
    ask()
    with time_machine.travel(timezone.now() + timedelta(days=3, minutes=1)):
        assert sandbox_refunds_settle() == 0

    assert SandboxRefund.objects.get().status == "processed"
    assert seen == []


def test_the_pass_settles_the_sandboxs_refunds_whatever_the_live_processor(
    collection, settings
):
    # On a deployment with a real processor the sandbox still settles the
    # refunds made there: the test side's (docs/test-mode.md).
    ask()
    settings.PROCESSOR = "paystack"

    assert sandbox_refunds_settle() == 1
    assert SandboxRefund.objects.get().status == "processed"


def test_the_pass_is_a_schedule_every_minute():
    spec = {spec.name: spec for spec in declared()}["payments-sandbox-refunds-settle"]

    assert spec.func == "payments.gateway.tasks.sandbox_refunds_settle"
    assert (spec.schedule_type, spec.minutes) == ("I", 1)


def test_verification_refunds_stay_processed_at_once_and_the_pass_leaves_them(
    alice, committed
):
    with committed():
        add_card(alice)

    refund = ProcessorRefund.objects.get()
    assert refund.status == "processed"
    assert SandboxRefund.objects.get().merchant_note == (
        verification_refund_reference(refund.charge.reference)
    )
    assert sandbox_refunds_settle() == 0
    assert not ProcessorEvent.objects.exists()


def test_a_verification_refund_whose_answer_was_lost_is_found_by_its_reference(
    alice, committed, monkeypatch
):
    """The processor made the refund but its answer was lost: the retry finds it
    under the charge's refund reference and never asks for a second one."""
    sandbox = get_processor()
    real_refund = sandbox.refund
    asked = []

    def answer_lost(**kwargs):
        asked.append(kwargs)
        real_refund(**kwargs)
        raise ProcessorTimeout()

    monkeypatch.setattr(sandbox, "refund", answer_lost)
    with committed():
        add_card(alice)
    charge = ProcessorCharge.objects.get()
    assert not ProcessorRefund.objects.exists()  # the answer never came

    again = verification_refund(charge_id=charge.pk)
    with time_machine.travel(timezone.now() + timedelta(minutes=6)):
        verification_refunds_retry()

    [made] = SandboxRefund.objects.all()
    assert [each["merchant_note"] for each in asked] == [
        verification_refund_reference(charge.reference)
    ]
    assert made.merchant_note == verification_refund_reference(charge.reference)
    assert ProcessorRefund.objects.get() == again
    assert (again.refund_id, again.amount, again.status) == (
        f"sbx_refund_{made.pk}",
        5000,
        "processed",
    )
    assert (
        LedgerTransaction.objects.filter(
            kind="verification_refund", reference=charge.reference
        ).count()
        == 1
    )
    out = StringIO()
    call_command("check_ledger", stdout=out)
    assert "clean" in out.getvalue()


def test_the_poll_hands_the_refund_to_the_handlers_and_knows_unknown_ones(
    collection, seen
):
    asked = ask()

    by_reference = processor_refund_check(
        reference="rf_abc_1", transaction_reference=collection
    )
    by_id = processor_refund_check(
        reference="rf_abc_1",
        transaction_reference=collection,
        refund_id=asked.refund_id,
    )

    assert by_reference == by_id == asked
    assert mine(seen) == [asked, asked]
    assert (
        processor_refund_check(reference="rf_other_1", transaction_reference=collection)
        is None
    )
    # An id of someone else's refund is not taken for ours.
    other = ask("rf_other_1", amount=1000)
    found = processor_refund_check(
        reference="rf_abc_1",
        transaction_reference=collection,
        refund_id=other.refund_id,
    )
    assert found == asked


def test_statuses_never_move_back_from_processed(alice, committed, seen):
    with committed():
        add_card(alice)
    refund = ProcessorRefund.objects.get()
    assert refund.status == "processed"
    later = RefundOutcome(
        reference="",
        transaction_reference=refund.charge.reference,
        refund_id=refund.refund_id,
        amount=5000,
        status="pending",
        processor_status="processing",
    )

    claimed = refund_outcome_dispatch(later)

    refund.refresh_from_db()
    assert refund.status == "processed"
    assert claimed == ["verification_refund_settle"]
    assert (
        LedgerTransaction.objects.filter(
            kind="verification_refund", reference=refund.charge.reference
        ).count()
        == 1
    )


def test_dispatch_calls_every_handler_and_names_those_whose_refund_it_is(seen):
    calls = []

    def other(outcome):
        calls.append(outcome)
        return False

    register_refund_handler(other)
    try:
        outcome = RefundOutcome(
            reference="rf_x_1",
            transaction_reference="inst_1_a1",
            refund_id="1",
            amount=10,
            status="processed",
            processor_status="processed",
        )
        claimed = refund_outcome_dispatch(outcome)
        stranger = RefundOutcome("zz", "inst_1_a1", "2", 10, "pending", "pending")
        nobody = refund_outcome_dispatch(stranger)
    finally:
        unregister_refund_handler(other)

    assert claimed == ["seen.<locals>.plan_refunds"]
    assert nobody == []
    assert calls == [outcome, stranger]
    assert len(seen) == 2


def test_a_handler_that_raises_rolls_back_what_every_handler_did(alice, monkeypatch):
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
    add_card(alice)
    refund = verification_refund(charge_id=ProcessorCharge.objects.get().pk)
    assert refund.status == "pending"

    def broken(outcome):
        raise RuntimeError("a handler above the gateway failed")

    register_refund_handler(broken)
    try:
        with pytest.raises(RuntimeError):
            processor_refund_check(
                reference=verification_refund_reference(refund.charge.reference),
                transaction_reference=refund.charge.reference,
                refund_id=refund.refund_id,
            )
    finally:
        unregister_refund_handler(broken)

    refund.refresh_from_db()
    assert refund.status == "pending"  # the verification handler's move undone
    assert not LedgerTransaction.objects.filter(kind="verification_refund").exists()


@postgres_only
@pytest.mark.django_db(transaction=True)
def test_passes_running_together_call_the_handlers_once_per_refund(collection, seen):
    first, second = ask("rf_a_1", amount=100_000), ask("rf_b_1", amount=50_000)

    results = run_concurrently(sandbox_refunds_settle, 4)

    assert not [r for r in results if isinstance(r, Exception)], results
    assert sorted(o.refund_id for o in seen) == sorted(
        [first.refund_id, second.refund_id]
    )
    assert set(SandboxRefund.objects.values_list("status", flat=True)) == {"processed"}
    assert ProcessorEvent.objects.count() == 2
