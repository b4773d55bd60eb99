"""Lost answers of early payments: a payment left in flight (a crash after the
charge, a processor that never answered) is settled by the engine's pass once its
lease ends, or by the processor's `charge.success`, always by verifying the early
payment's own reference; the installment is never charged under another one
first."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from installments.collection import LEASE, early_recovery
from installments.early import outcomes as early_outcomes
from installments.early import services
from installments.early.models import EarlyPayment
from installments.plans.models import Installment
from payments.gateway.services.processor_events import processor_event_handle
from payments.methods.services.saved_charges import UNKNOWN, ChargeOutcome
from payments.models import LedgerTransaction, SandboxTransaction
from webhooks.models import Event

from .conftest import check_ledger, collect, installments_of

pytestmark = pytest.mark.django_db


class Crash(Exception):
    """Stands for the process dying around the processor call."""


def charges(prefix: str) -> list[str]:
    return list(
        SandboxTransaction.objects.filter(
            kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE,
            reference__startswith=prefix,
        )
        .order_by("id")
        .values_list("reference", flat=True)
    )


def pay_and_crash(setup, monkeypatch, *, when: str, **what):
    """The customer's request dies `after` the processor charged (inside the
    transaction that records its answer, before it commits), or `before` it
    was called; the claim is committed either way."""
    real_record = early_outcomes.early_payment_record

    def crash_recording(**kwargs):
        real_record(**kwargs)
        raise Crash(when)

    def crash_calling(**kwargs):
        raise Crash(when)

    with monkeypatch.context() as patch:
        if when == "after":
            patch.setattr(early_outcomes, "early_payment_record", crash_recording)
        else:
            patch.setattr(services, "saved_method_charge", crash_calling)
        with pytest.raises(Crash):
            services.plan_pay_early(
                customer=setup.plan.customer, plan=setup.plan, **what
            )


def after_the_lease():
    return time_machine.travel(timezone.now() + LEASE + timedelta(seconds=1))


def test_a_crash_after_the_charge_is_settled_paid_by_the_next_pass(
    plan_active, monkeypatch
):
    setup = plan_active
    first = installments_of(setup.plan)[0]
    pay_and_crash(setup, monkeypatch, when="after", installment_id=first.public_id)

    first.refresh_from_db()
    assert (first.status, first.attempts) == ("processing", 1)
    assert charges(first.public_id) == [f"{first.public_id}_p1"]  # money taken
    again = setup.shopper.post(f"{setup.url}/pay", {"payoff": True})
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "payment_in_progress"
    # Within the lease nothing touches it, even on its due date.
    assert collect(first.due_date).claimed == 0

    with after_the_lease():
        summary = collect(first.due_date)

    assert summary.early_settled == 1
    assert summary.claimed == 0
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 1)
    assert first.processor_reference == f"{first.public_id}_p1"
    assert charges(first.public_id) == [f"{first.public_id}_p1"]
    assert LedgerTransaction.objects.filter(reference=first.public_id).count() == 1
    assert Event.objects.filter(event_type="installment.paid").count() == 1
    assert "clean" in check_ledger()


def test_a_crashed_payoff_is_settled_as_one_collection(plan_active, monkeypatch):
    setup = plan_active
    pay_and_crash(setup, monkeypatch, when="after")

    with after_the_lease():
        collect()

    reference = f"{setup.plan.public_id}_po1"
    assert set(setup.plan.installments.values_list("status", flat=True)) == {"paid"}
    assert charges("inst_") == []
    assert charges(reference) == [reference]
    assert LedgerTransaction.objects.filter(processor_reference=reference).count() == 1
    setup.plan.refresh_from_db()
    assert setup.plan.status == "completed"
    assert Event.objects.filter(event_type="payment_plan.completed").count() == 1
    assert "clean" in check_ledger()


def test_a_crash_before_the_charge_puts_the_installment_back_uncharged(
    plan_active, monkeypatch
):
    setup = plan_active
    first, second, _ = installments_of(setup.plan)
    pay_and_crash(setup, monkeypatch, when="before", installment_id=first.public_id)
    assert charges(first.public_id) == []

    with after_the_lease():
        collect(second.due_date - timedelta(days=1))

    # The processor never saw `_p1`: the installment went back as it was, and the
    # same pass collected it on its date under the engine's own reference.
    assert EarlyPayment.objects.get().status == "failed"
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("paid", 1)
    assert charges(first.public_id) == [f"{first.public_id}_a1"]
    assert first.status_changes.filter(to_status="scheduled").count() == 1
    assert "clean" in check_ledger()


def test_an_undecided_payment_stays_in_flight_and_is_never_charged_again(
    plan_active, monkeypatch
):
    setup = plan_active
    first = installments_of(setup.plan)[0]
    pay_and_crash(setup, monkeypatch, when="after", installment_id=first.public_id)
    # The processor cannot say, pass after pass.
    monkeypatch.setattr(
        early_recovery,
        "charge_verify",
        lambda *, reference, unseen_is_failed: ChargeOutcome(UNKNOWN, reference),
    )

    for hours in (1, 2, 3):
        with time_machine.travel(timezone.now() + timedelta(hours=hours)):
            collect(first.due_date)

    first.refresh_from_db()
    assert first.status == "processing"
    assert EarlyPayment.objects.get().status == "processing"
    assert charges(first.public_id) == [f"{first.public_id}_p1"]


def test_the_processors_charge_success_settles_an_unanswered_payment_at_once(
    plan_active, monkeypatch
):
    setup = plan_active
    first = installments_of(setup.plan)[0]
    real_charge = services.saved_method_charge

    def no_answer(**kwargs):
        real_charge(**kwargs)  # charged, but the answer is lost
        return ChargeOutcome(UNKNOWN, kwargs["reference"])

    monkeypatch.setattr(services, "saved_method_charge", no_answer)
    response = setup.shopper.post(
        f"{setup.url}/pay", {"installment_id": first.public_id}
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "payment_in_progress"
    event = {
        "event": "charge.success",
        "data": {"reference": f"{first.public_id}_p1", "status": "success"},
    }

    assert processor_event_handle(payload=event, source="webhook") == "handled"
    assert processor_event_handle(payload=event, source="webhook") == "duplicate"

    first.refresh_from_db()
    assert (first.status, first.processor_reference) == (
        "paid",
        f"{first.public_id}_p1",
    )
    with after_the_lease():
        assert collect(first.due_date).early_settled == 0
    assert charges(first.public_id) == [f"{first.public_id}_p1"]
    assert Installment.objects.filter(status="paid").count() == 1
    assert "clean" in check_ledger()
