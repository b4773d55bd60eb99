"""Plan, installment and deposit-attempt statuses move only as DESIGN section 7
allows, and every move is stamped and recorded."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from config.models import IllegalTransition
from installments.deposits.models import DepositAttempt
from installments.plans.models import Installment, PaymentPlan

Plan = PaymentPlan.Status
Inst = Installment.Status


def test_an_active_plan_cannot_go_back_to_pending(plan_active):
    plan = plan_active.plan

    for illegal in (Plan.PENDING, Plan.ACTIVE):
        with pytest.raises(IllegalTransition):
            plan.transition_to(illegal)

    plan.refresh_from_db()
    assert plan.status == Plan.ACTIVE


def test_an_active_or_defaulted_plan_may_be_cancelled_and_stays_so(plan_active):
    # DESIGN section 14: a merchant's cancellation, or a refund that cancelled
    # every unpaid installment.
    plan = plan_active.plan
    plan.transition_to(Plan.DEFAULTED)
    plan.transition_to(Plan.CANCELLED)

    assert plan.cancelled_at == plan.status_changed_at
    for illegal in (Plan.PENDING, Plan.ACTIVE, Plan.COMPLETED, Plan.DEFAULTED):
        with pytest.raises(IllegalTransition):
            plan.transition_to(illegal)


def test_only_an_unpaid_installment_may_be_cancelled(plan_active):
    first, second, third = plan_active.plan.installments.order_by("sequence")
    first.transition_to(Inst.CANCELLED)
    second.attempts = 1
    second.transition_to(Inst.PROCESSING, update_fields=["attempts"])
    with pytest.raises(IllegalTransition):
        second.transition_to(Inst.CANCELLED)  # being charged
    second.transition_to(Inst.PAID)
    with pytest.raises(IllegalTransition):
        second.transition_to(Inst.CANCELLED)
    third.attempts = 1
    third.transition_to(Inst.PROCESSING, update_fields=["attempts"])
    third.transition_to(Inst.FAILED)
    third.transition_to(Inst.CANCELLED)

    assert first.cancelled_at is not None and third.cancelled_at is not None
    for cancelled in (first, third):
        with pytest.raises(IllegalTransition):
            cancelled.transition_to(Inst.PROCESSING)


def test_activation_is_stamped_and_recorded(plan_active):
    plan = plan_active.plan

    assert plan.activated_at is not None
    assert plan.status_changed_at == plan.activated_at
    assert list(plan.status_changes.values_list("from_status", "to_status")) == [
        ("pending", "active")
    ]


def test_a_plan_completes_or_defaults_only_once(plan_active):
    plan = plan_active.plan
    later = timezone.now() + timedelta(days=90)

    with time_machine.travel(later):
        plan.transition_to(Plan.COMPLETED)

    assert plan.completed_at == plan.status_changed_at
    assert abs(plan.completed_at - later) < timedelta(seconds=1)
    with pytest.raises(IllegalTransition):
        plan.transition_to(Plan.DEFAULTED)
    assert plan.status_changes.count() == 2


def test_installments_move_through_attempts_and_keep_each_change(plan_active):
    installment = plan_active.plan.installments.first()

    with pytest.raises(IllegalTransition):
        installment.transition_to(Inst.PAID)  # not claimed yet
    installment.attempts = 1
    installment.transition_to(Inst.PROCESSING, update_fields=["attempts"])
    installment.transition_to(Inst.FAILED)
    installment.attempts = 2
    installment.transition_to(Inst.PROCESSING, update_fields=["attempts"])
    installment.transition_to(Inst.PAID)

    installment.refresh_from_db()
    assert (installment.status, installment.attempts) == ("paid", 2)
    assert installment.paid_at is not None and installment.failed_at is not None
    assert list(
        installment.status_changes.values_list("from_status", "to_status", "attempt")
    ) == [
        ("scheduled", "processing", 1),
        ("processing", "failed", 1),
        ("failed", "processing", 2),
        ("processing", "paid", 2),
    ]
    with pytest.raises(IllegalTransition):
        installment.transition_to(Inst.FAILED)


def test_a_failed_installment_can_default_but_a_paid_one_cannot(plan_active):
    first, second, _ = plan_active.plan.installments.all()
    for installment in (first, second):
        installment.transition_to(Inst.PROCESSING)
    first.transition_to(Inst.FAILED)
    second.transition_to(Inst.PAID)

    first.transition_to(Inst.DEFAULTED)

    assert first.defaulted_at is not None
    with pytest.raises(IllegalTransition):
        second.transition_to(Inst.DEFAULTED)


def test_a_settled_deposit_attempt_never_moves_again(plan_active):
    attempt = DepositAttempt.objects.get(plan=plan_active.plan)

    assert attempt.status == "succeeded" and attempt.settled_at is not None
    for illegal in ("processing", "failed", "succeeded"):
        with pytest.raises(IllegalTransition):
            attempt.transition_to(illegal)


def test_installments_become_due_at_the_start_of_their_due_date(plan_active):
    for installment in plan_active.plan.installments.all():
        local = timezone.localtime(installment.next_attempt_at)
        assert local.date() == installment.due_date
        assert (local.hour, local.minute) == (0, 0)
