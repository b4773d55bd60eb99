"""Plan services and milestones: the release rule, and the reasons
`payment.failed` reports."""

import pytest
from django.utils import timezone

from installments.deposits import services
from installments.plans import milestones
from installments.plans.models import Installment, PaymentPlan


@pytest.mark.parametrize(
    ("reason", "reported"),
    [
        ("insufficient_funds", "insufficient_funds"),
        ("authorization_revoked", "authorization_revoked"),
        ("processor_error", "processor_error"),
        ("declined", "do_not_honor"),
        ("something new", "do_not_honor"),
    ],
)
def test_payment_failed_reasons_stay_in_the_documented_list(reason, reported):
    assert services.failure_reason(reason) == reported


def pay(installment):
    installment.transition_to(Installment.Status.PROCESSING)
    installment.transition_to(Installment.Status.PAID)


@pytest.mark.parametrize(
    ("rule", "paid", "due"),
    [
        ("on_deposit", 0, True),
        ("after_installments:2", 1, False),
        ("after_installments:2", 2, True),
        # More than the plan has: all of them paid is enough.
        ("after_installments:5", 3, True),
        ("after_installments:5", 2, False),
        ("on_completion", 3, False),
    ],
)
def test_the_release_rule(plan_active, rule, paid, due):
    plan = plan_active.plan
    plan.merchant.release_rule = rule
    plan.merchant.save()
    for installment in plan.installments.all()[:paid]:
        pay(installment)

    assert milestones.goods_release_due(plan) is due


def test_on_completion_releases_when_the_plan_completes(plan_active):
    plan = plan_active.plan
    plan.merchant.release_rule = "on_completion"
    plan.merchant.save()
    plan.transition_to(PaymentPlan.Status.COMPLETED)

    assert milestones.goods_release_due(plan) is True


def test_goods_are_released_once_per_plan(plan_active):
    plan = plan_active.plan
    assert plan.goods_released_at is not None  # on_deposit, at checkout

    assert milestones.milestones_reach(plans=[plan], at=timezone.now()).released == []


def test_a_pending_plan_never_releases(plan_active):
    plan = plan_active.plan
    plan.status = PaymentPlan.Status.PENDING

    assert milestones.goods_release_due(plan) is False
