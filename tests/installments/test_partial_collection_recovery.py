"""A partial debit is its own claimed charge (DESIGN section 15): its reference
is committed on the installment before the processor is called, so a pass
that takes a crashed attempt over verifies it by reference and records what
the processor took, once; it never sends it again, and never charges the
attempt in full after it was asked."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from installments.collection import LEASE, PassSummary, outcomes, partial
from installments.plans.models import Installment
from payments.gateway.errors import ProcessorTimeout
from payments.gateway.processors.sandbox import SandboxProcessor
from payments.gateway.services.processor_events import processor_event_handle
from payments.models import LedgerTransaction, ProcessorEvent, SandboxTransaction
from webhooks.models import Event

from ..checkout.conftest import CARD_OK, add_card
from .conftest import charges_for, check_ledger, collect, installments_of
from .crashes import Crash
from .partial_plans import first_three_attempts, partial_plan, refreshed

pytestmark = pytest.mark.django_db


def after_the_lease(on_date) -> PassSummary:
    with time_machine.travel(timezone.now() + LEASE + timedelta(seconds=1)):
        return collect(on_date)


def last_retry_day(first: Installment):
    return first.due_date + timedelta(days=7)


def partial_events(first: Installment) -> list[Event]:
    return list(
        Event.objects.filter(
            event_type="installment.partially_paid", body__contains=first.public_id
        )
    )


def test_a_crash_after_the_partial_debit_is_recorded_once_by_verifying_it(
    monkeypatch,
):
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)

    # The pass dies inside the transaction that records the partial debit's
    # answer, before it commits.
    real = outcomes.apply_outcomes

    def crash(results, **kwargs):
        real(results, **kwargs)
        raise Crash(f"killed recording the partial debit of {first.public_id}")

    monkeypatch.setattr(outcomes, "apply_outcomes", crash)
    summary = collect(last_retry_day(first))

    assert summary.in_flight == 1
    first = refreshed(first)
    reference = f"{first.public_id}_a4p"
    assert (first.status, first.attempts) == ("processing", 4)
    assert first.partial_reference == reference  # committed before the call
    assert first.amount_paid == 0
    [debit] = charges_for(first).filter(reference=reference)
    assert debit.status == "success"  # the processor took the money
    assert not LedgerTransaction.objects.filter(reference=reference).exists()

    # The process restarts; meanwhile the customer saved a card with money.
    monkeypatch.setattr(outcomes, "apply_outcomes", real)
    add_card(setup.shopper, CARD_OK)
    summary = after_the_lease(last_retry_day(first))

    assert (summary.claimed, summary.resumed) == (1, 1)
    first = refreshed(first)
    assert (first.status, first.attempts, first.amount_paid) == (
        "failed",
        4,
        debit.amount,
    )
    # Verified, not sent again; and the attempt is not charged in full anew.
    assert charges_for(first).filter(reference=reference).count() == 1
    assert not charges_for(first).filter(reference=f"{first.public_id}_a4m2")
    assert LedgerTransaction.objects.filter(reference=reference).count() == 1
    assert len(partial_events(first)) == 1
    assert "clean" in check_ledger()


def test_a_crash_before_the_call_never_sends_it_and_collects_nothing(monkeypatch):
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)

    def dies(**kwargs):
        raise Crash("killed between the claim and the call")

    monkeypatch.setattr(partial, "saved_method_partial_debit", dies)
    assert collect(last_retry_day(first)).in_flight == 1
    first = refreshed(first)
    assert first.partial_reference == f"{first.public_id}_a4p"

    monkeypatch.undo()
    summary = after_the_lease(last_retry_day(first))

    assert summary.tally.defaulted == 1
    first = refreshed(first)
    assert (first.status, first.amount_paid) == ("defaulted", 0)
    assert not SandboxTransaction.objects.filter(
        reference=first.partial_reference
    ).exists()
    assert not partial_events(first)
    assert "clean" in check_ledger()


def test_an_unanswered_partial_debit_stays_in_flight_until_verified(monkeypatch):
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)
    # The processor takes the money but neither the call nor its verification
    # gets an answer through.
    real_debit = SandboxProcessor.partial_debit

    def debit_then_time_out(self, **kwargs):
        real_debit(self, **kwargs)
        raise ProcessorTimeout("no answer")

    def verify_times_out(self, *, reference):
        raise ProcessorTimeout("no answer")

    monkeypatch.setattr(SandboxProcessor, "partial_debit", debit_then_time_out)
    real_verify = SandboxProcessor.verify_transaction
    monkeypatch.setattr(SandboxProcessor, "verify_transaction", verify_times_out)
    assert collect(last_retry_day(first)).in_flight == 1
    assert refreshed(first).status == "processing"

    monkeypatch.setattr(SandboxProcessor, "verify_transaction", real_verify)
    after_the_lease(last_retry_day(first))

    first = refreshed(first)
    [debit] = charges_for(first).filter(reference=first.partial_reference)
    assert (first.status, first.amount_paid) == ("failed", debit.amount)
    assert len(partial_events(first)) == 1
    assert "clean" in check_ledger()


def test_the_processors_charge_success_for_a_partial_debit_is_known_and_moves_nothing():
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)
    collect(last_retry_day(first))
    first = refreshed(first)
    event = {
        "event": "charge.success",
        "data": {"reference": first.partial_reference, "status": "success"},
    }

    assert processor_event_handle(payload=event, source="webhook") == "handled"

    note = ProcessorEvent.objects.get(key=first.partial_reference).note
    assert note == "confirmed by partial_debit_charge_confirm"
    assert refreshed(first).amount_paid == first.amount_paid
    assert (
        LedgerTransaction.objects.filter(reference=first.partial_reference).count() == 1
    )
    assert "clean" in check_ledger()
