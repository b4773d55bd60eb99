"""Crashes and lost answers: an attempt left `processing` is settled by a later
pass (after its 10-minute lease) by verifying its references, or confirmed by the
processor's `charge.success`; an installment is never charged twice."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from installments.collection import LEASE, charging, claims, outcomes
from installments.plans.models import Installment
from payments.gateway.services.processor_events import processor_event_handle
from payments.methods.services.saved_charges import saved_method_charge
from payments.models import LedgerTransaction, ProcessorEvent, SandboxTransaction
from webhooks.models import Event

from ..checkout.conftest import CARD_POOR, add_card
from .conftest import (
    charges_for,
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
)
from .crashes import Crash
from .failed_collections import make_default, only_card

pytestmark = pytest.mark.django_db


@pytest.fixture
def crash_after_charge(monkeypatch):
    """The pass dies inside the transaction that records what the processor
    answered, before it commits: the money is taken, nothing is recorded.
    Calling what it returns lets the next process record again."""
    real = outcomes.apply_outcomes

    def crash(results, **kwargs):
        real(results, **kwargs)
        raise Crash(f"killed recording {[result.reference for result in results]}")

    monkeypatch.setattr(outcomes, "apply_outcomes", crash)
    return lambda: monkeypatch.setattr(outcomes, "apply_outcomes", real)


def paid_events(installment) -> list[Event]:
    return list(
        Event.objects.filter(
            event_type="installment.paid", body__contains=installment.public_id
        )
    )


def test_a_crash_after_the_charge_ends_paid_once_and_charged_once(
    plan_active, crash_after_charge
):
    first = installments_of(plan_active.plan)[0]

    summary = collect(first.due_date)

    assert summary.in_flight == 1
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("processing", 1)
    assert [c.status for c in charges_for(first)] == ["success"]  # money taken
    assert not LedgerTransaction.objects.filter(reference=first.public_id).exists()

    crash_after_charge()  # the process restarts
    # Within the lease the attempt is left alone (its worker may still be busy).
    assert collect(first.due_date).claimed == 0
    with time_machine.travel(timezone.now() + LEASE + timedelta(seconds=1)):
        summary = collect(first.due_date)

    assert (summary.claimed, summary.resumed, summary.tally.paid) == (1, 1, 1)
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 1)
    assert first.processor_reference == f"{first.public_id}_a1"
    assert charges_for(first).count() == 1
    assert LedgerTransaction.objects.filter(reference=first.public_id).count() == 1
    assert len(paid_events(first)) == 1
    assert "clean" in check_ledger()


def test_a_crash_before_the_charge_charges_the_same_reference_later(plan_active):
    first = installments_of(plan_active.plan)[0]
    # A pass claimed the installment and died before calling the processor.
    [claim] = claims.claim_due(
        cutoff=timezone.now() + timedelta(days=400), now=timezone.now(), limit=1
    )
    assert claim.reference() == f"{first.public_id}_a1"
    assert not charges_for(first).exists()

    with time_machine.travel(timezone.now() + LEASE + timedelta(seconds=1)):
        collect(first.due_date)

    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 1)
    assert [c.reference for c in charges_for(first)] == [f"{first.public_id}_a1"]


def test_a_crash_after_a_decline_resumes_with_the_next_method(plan_active):
    setup = plan_active
    poor = add_card(setup.shopper, CARD_POOR)
    make_default(setup, poor)
    first = installments_of(setup.plan)[0]
    real_charge = charging.saved_method_charge
    calls = []

    def dies_after_the_first_decline(**kwargs):
        calls.append(kwargs["reference"])
        outcome = real_charge(**kwargs)
        if len(calls) == 1:
            raise Crash("killed after the default method declined")
        return outcome

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(charging, "saved_method_charge", dies_after_the_first_decline)
        collect(first.due_date)
    assert [c.reference for c in charges_for(first)] == [f"{first.public_id}_a1"]

    with time_machine.travel(timezone.now() + LEASE + timedelta(seconds=1)):
        collect(first.due_date)

    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 1)
    # The declined reference was verified, not charged again; the second method
    # was charged under its own reference.
    assert [(c.reference, c.status) for c in charges_for(first)] == [
        (f"{first.public_id}_a1", "failed"),
        (f"{first.public_id}_a1m2", "success"),
    ]


def test_a_stale_decline_is_recorded_as_the_failed_attempt_it_was(
    db, crash_after_charge
):
    setup = make_active_plan()
    only_card(setup, CARD_POOR)
    first = installments_of(setup.plan)[0]
    collect(first.due_date)
    crash_after_charge()

    with time_machine.travel(timezone.now() + LEASE + timedelta(seconds=1)):
        collect(first.due_date)

    first.refresh_from_db()
    assert (first.status, first.attempts) == ("failed", 1)
    assert first.last_failure_reason == "insufficient_funds"
    assert charges_for(first).count() == 1


def test_an_answer_the_processor_could_not_give_stays_in_flight(
    plan_active, monkeypatch
):
    first = installments_of(plan_active.plan)[0]
    monkeypatch.setattr(
        charging,
        "saved_method_charge",
        lambda **kwargs: charging.ChargeOutcome(
            status="unknown", reference=kwargs["reference"]
        ),
    )

    summary = collect(first.due_date)

    assert summary.in_flight == 1
    first.refresh_from_db()
    assert first.status == "processing"
    assert first.next_attempt_at > timezone.now() + LEASE - timedelta(minutes=1)


def in_flight_and_charged(setup) -> Installment:
    """An attempt charged at the processor whose answer never reached the engine."""
    first = installments_of(setup.plan)[0]
    [claim] = claims.claim_due(
        cutoff=timezone.now() + timedelta(days=400), now=timezone.now(), limit=1
    )
    method = setup.plan.customer.payment_methods.get()
    outcome = saved_method_charge(
        method=method, amount=claim.amount, reference=claim.reference()
    )
    assert outcome.succeeded
    return first


def test_the_processors_charge_success_confirms_an_attempt_in_flight_once(
    plan_active,
):
    first = in_flight_and_charged(plan_active)
    event = {
        "event": "charge.success",
        "data": {"reference": f"{first.public_id}_a1", "status": "success"},
    }

    assert processor_event_handle(payload=event, source="webhook") == "handled"
    assert processor_event_handle(payload=event, source="webhook") == "duplicate"

    first.refresh_from_db()
    assert (first.status, first.processor_reference) == (
        "paid",
        f"{first.public_id}_a1",
    )
    assert LedgerTransaction.objects.filter(reference=first.public_id).count() == 1
    assert len(paid_events(first)) == 1
    # The lease ends: nothing is left to settle, nothing is charged again.
    with time_machine.travel(timezone.now() + LEASE + timedelta(seconds=1)):
        assert collect(first.due_date).claimed == 0
    assert charges_for(first).count() == 1
    assert "clean" in check_ledger()


def test_charge_success_for_an_attempt_already_recorded_changes_nothing(
    plan_active,
):
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    event = {"event": "charge.success", "data": {"reference": f"{first.public_id}_a1"}}

    assert processor_event_handle(payload=event, source="webhook") == "handled"

    assert LedgerTransaction.objects.filter(reference=first.public_id).count() == 1
    assert len(paid_events(first)) == 1


def test_charge_success_for_another_reference_is_not_an_installments(plan_active):
    deposit = plan_active.plan.deposit_attempts.get()
    event = {"event": "charge.success", "data": {"reference": deposit.reference}}

    processor_event_handle(payload=event, source="webhook")

    assert ProcessorEvent.objects.get(key=deposit.reference).note == (
        "no handler knows this reference"
    )


def test_two_passes_never_take_the_same_claim(plan_active):
    first = installments_of(plan_active.plan)[0]
    cutoff = timezone.now() + timedelta(days=400)

    taken = claims.claim_due(cutoff=cutoff, now=timezone.now(), limit=10)
    again = claims.claim_due(cutoff=cutoff, now=timezone.now(), limit=10)

    assert [claim.pk for claim in taken] == [first.pk] + [
        i.pk for i in installments_of(plan_active.plan)[1:]
    ]
    assert again == []
    assert SandboxTransaction.objects.filter(reference__startswith="inst_").count() == 0
