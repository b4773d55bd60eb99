"""Disputes (DESIGN section 19): the money a dispute holds, returns or charges
back, and the plan that stops collecting while one is open."""

from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import CommandError, call_command

from installments.disputes import resume, services
from installments.disputes.models import Dispute
from installments.notifications.models import Message
from installments.plans.models import Installment, PaymentPlan
from installments.privacy.erasure import customer_erase
from installments.privacy.errors import ErasureRefused
from installments.privacy.export import customer_data_export
from installments.privacy.rules import erasure_refusals
from payments.ledger.fees import platform_fee
from payments.ledger.models import DISPUTES_HELD, LedgerTransaction
from payments.ledger.selectors import account_balance, wallet_available_balance
from payments.payouts.tasks import run_payouts

from .conftest import cancel, check_ledger, collect, event_data, installments_of
from .disputes import deposit_reference, dispute_decide, dispute_open

pytestmark = pytest.mark.django_db(transaction=True)


def _paid_first(setup):
    first = installments_of(setup.plan)[0]
    collect(on_date=first.due_date)
    first.refresh_from_db()
    assert first.status == Installment.Status.PAID
    return first


def test_a_dispute_holds_exactly_its_amount_and_stops_the_plans_collection(
    plan_active,
):
    setup = plan_active
    merchant = setup.owner.merchant
    before = wallet_available_balance(merchant)
    reference = deposit_reference(setup.plan)
    dispute = dispute_open(reference)
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE
    assert dispute.amount == dispute.amount_held == setup.plan.deposit_amount
    assert wallet_available_balance(merchant) == before - dispute.amount
    assert -account_balance(DISPUTES_HELD) == dispute.amount
    setup.plan.refresh_from_db()
    assert setup.plan.open_disputes == 1
    first = installments_of(setup.plan)[0]
    summary = collect(on_date=first.due_date)
    assert summary.claimed == 0
    first.refresh_from_db()
    assert first.status == Installment.Status.SCHEDULED
    assert [d["resourceId"] for d in event_data(merchant, "dispute.created")] == [
        dispute.public_id
    ]
    check_ledger()


def test_a_dispute_arriving_twice_makes_one_dispute(plan_active):
    reference = deposit_reference(plan_active.plan)
    first = dispute_open(reference)
    again = dispute_open(reference)
    assert first.pk == again.pk
    assert Dispute.objects.count() == 1
    assert LedgerTransaction.objects.filter(kind="dispute_held").count() == 1
    check_ledger()


def test_won_returns_the_held_amount_and_collection_resumes(plan_active):
    setup = plan_active
    merchant = setup.owner.merchant
    before = wallet_available_balance(merchant)
    dispute = dispute_decide(dispute_open(deposit_reference(setup.plan)), won=True)
    assert dispute.status == Dispute.Status.WON
    assert wallet_available_balance(merchant) == before
    assert account_balance(DISPUTES_HELD) == 0
    setup.plan.refresh_from_db()
    assert setup.plan.open_disputes == 0
    assert setup.plan.status == PaymentPlan.Status.ACTIVE
    _paid_first(setup)
    check_ledger()


def test_lost_gives_back_the_fee_by_the_fee_rule_and_the_plan_waits(plan_active):
    setup = plan_active
    merchant = setup.owner.merchant
    first = _paid_first(setup)
    before = wallet_available_balance(merchant)
    dispute = dispute_decide(dispute_open(first.processor_reference), won=False)
    assert dispute.status == Dispute.Status.LOST
    fee_back = platform_fee(first.amount)
    # The merchant bears what it netted; the platform gives back its fee.
    assert wallet_available_balance(merchant) == before - first.amount + fee_back
    setup.plan.refresh_from_db()
    assert setup.plan.status == PaymentPlan.Status.DISPUTED
    assert setup.plan.amount_charged_back == first.amount
    assert [d["status"] for d in event_data(merchant, "dispute.lost")] == ["lost"]
    check_ledger()


def test_resume_continues_the_plan_and_tells_the_customer(plan_active):
    setup = plan_active
    first = _paid_first(setup)
    dispute_decide(dispute_open(first.processor_reference), won=False)
    second = installments_of(setup.plan)[1]
    assert collect(on_date=second.due_date).claimed == 0
    plan = resume.plan_resume(plan=setup.plan)
    assert plan.status == PaymentPlan.Status.ACTIVE
    notices = Message.objects.filter(kind=Message.Kind.SCHEDULE_CHANGED)
    assert notices.filter(channel="email").count() == 1
    assert "not collected again automatically" in notices.get(channel="email").body
    collect(on_date=second.due_date)
    second.refresh_from_db()
    assert second.status == Installment.Status.PAID
    check_ledger()


def test_an_unanswered_dispute_past_its_deadline_is_lost(plan_active):
    dispute = dispute_open(deposit_reference(plan_active.plan))
    with time_machine.travel(dispute.due_at - timedelta(minutes=1)):
        assert services.disputes_lapse() == 0
    with time_machine.travel(dispute.due_at + timedelta(minutes=1)):
        assert services.disputes_lapse() == 1
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.LOST
    check_ledger()


def test_a_payout_during_a_dispute_pays_out_nothing_of_it(plan_active):
    setup = plan_active
    merchant = setup.owner.merchant
    dispute = dispute_open(deposit_reference(setup.plan))
    available = wallet_available_balance(merchant)
    run_payouts()
    paid = sum(p.amount for p in merchant.payouts.all())
    assert paid <= max(available, 0)
    assert -account_balance(DISPUTES_HELD) == dispute.amount
    check_ledger()


def test_a_customer_with_an_open_dispute_cannot_be_erased_and_sees_it_exported(
    plan_active,
):
    setup = plan_active
    customer = setup.shopper.customer
    dispute = dispute_open(deposit_reference(setup.plan))
    # The plan is cancelled so that only the dispute keeps the data.
    assert cancel(setup).status_code == 200
    with pytest.raises(ErasureRefused, match="disputed"):
        customer_erase(customer=customer)
    [row] = customer_data_export(customer)["disputes"]
    assert (row["public_id"], row["amount"]) == (dispute.public_id, dispute.amount)
    dispute_decide(dispute, won=True)
    assert erasure_refusals(customer) == []


def test_check_ledger_catches_a_plan_whose_dispute_count_is_wrong(plan_active):
    """The engine and early payments read `open_disputes`; a count that lost
    track of its disputes would charge a disputed plan: check_ledger says so."""
    dispute = dispute_open(deposit_reference(plan_active.plan))
    check_ledger()
    PaymentPlan.objects.filter(pk=plan_active.plan.pk).update(open_disputes=0)
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("check_ledger", stdout=out)
    plan_id = plan_active.plan.public_id
    assert f"plan {plan_id} counts 0 open disputes, it has 1" in out.getvalue()
    assert dispute.public_id not in out.getvalue()  # its postings are right
