"""Cancelling a plan (`POST .../cancel`, DESIGN section 14): no more debits,
nothing refunded; and what an installment being charged does to a refund or a
cancellation (409)."""

from rest_framework.test import APIClient

from installments.plans.models import Installment, PaymentPlan
from installments.refunds.models import Refund
from payments.ledger.models import LedgerTransaction

from ..conftest import bearer
from .conftest import (
    cancel,
    charges_for,
    check_ledger,
    collect,
    event_data,
    installments_of,
    refund,
)
from .refund_figures import snapshot

Inst = Installment.Status


def being_charged(installment: Installment) -> None:
    """What the engine's claim does: `processing`, attempt n + 1."""
    installment.attempts += 1
    installment.transition_to(Inst.PROCESSING, update_fields=["attempts"])


def test_cancelling_stops_every_debit_and_refunds_nothing(plan_active):
    ledger_before = LedgerTransaction.objects.count()

    response = cancel(plan_active, "Customer changed their mind")

    assert response.status_code == 200, response.content
    plan = response.json()["data"]
    assert plan["status"] == "cancelled"
    assert [(i["status"], i["amount"]) for i in plan["installments"]] == [
        ("cancelled", 58_334),
        ("cancelled", 58_333),
        ("cancelled", 58_333),
    ]
    assert (plan["amount_paid"], plan["amount_refunded"]) == (75_000, 0)
    assert plan["amount_remaining"] == 0
    stored = PaymentPlan.objects.get(pk=plan_active.plan.pk)
    assert stored.cancellation_reason == "Customer changed their mind"
    assert stored.cancelled_at is not None
    for row in installments_of(stored):
        collect(row.due_date)
    assert all(not charges_for(row).exists() for row in installments_of(stored))
    assert LedgerTransaction.objects.count() == ledger_before
    assert Refund.objects.count() == 0
    assert event_data(plan_active.owner.merchant, "payment_plan.cancelled") == [
        {
            "resourceType": "payment_plan",
            "resourceId": stored.public_id,
            "orderReference": stored.order_reference,
            "amountPaid": 75_000,
            "amountRefunded": 0,
            "amountRefundPending": 0,
            "amountRemaining": 0,
        }
    ]
    check_ledger()


def test_a_cancelled_plan_cannot_be_cancelled_again(plan_active):
    cancel(plan_active)

    response = cancel(plan_active)

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "plan_not_cancellable"
    assert "This plan is cancelled" in response.json()["error"]["message"]
    assert len(event_data(plan_active.owner.merchant, "payment_plan.cancelled")) == 1


def test_a_completed_or_pending_plan_cannot_be_cancelled(plan_active):
    for row in installments_of(plan_active.plan):
        collect(row.due_date)
    assert cancel(plan_active).status_code == 409
    pending = PaymentPlan.objects.get(pk=plan_active.plan.pk)
    PaymentPlan.objects.filter(pk=pending.pk).update(status="pending")
    assert cancel(plan_active).status_code == 409


def test_a_defaulted_plan_can_be_cancelled_its_defaulted_installment_kept(
    plan_active,
):
    first, second, third = installments_of(plan_active.plan)
    being_charged(first)
    first.transition_to(Inst.FAILED)
    first.transition_to(Inst.DEFAULTED)
    plan_active.plan.transition_to(PaymentPlan.Status.DEFAULTED)

    response = cancel(plan_active)

    assert response.status_code == 200
    assert [i["status"] for i in response.json()["data"]["installments"]] == [
        "defaulted",
        "cancelled",
        "cancelled",
    ]


def test_a_plan_with_an_installment_being_charged_cannot_be_cancelled(plan_active):
    being_charged(installments_of(plan_active.plan)[0])
    before = snapshot(plan_active)

    response = cancel(plan_active)

    assert response.status_code == 409
    assert "being charged" in response.json()["error"]["message"]
    assert snapshot(plan_active) == before


def test_a_refund_that_needs_an_installment_being_charged_is_409(plan_active):
    being_charged(installments_of(plan_active.plan)[0])
    before = snapshot(plan_active)

    response = refund(plan_active, 58_333 * 2 + 1)

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "plan_busy"
    assert snapshot(plan_active) == before
    # Later installments alone can take a smaller refund meanwhile.
    assert refund(plan_active, 58_333 * 2).status_code == 201
    assert [row.status for row in installments_of(plan_active.plan)] == [
        "processing",
        "cancelled",
        "cancelled",
    ]
    assert PaymentPlan.objects.get(pk=plan_active.plan.pk).status == "active"


def test_only_the_plans_merchant_cancels_with_its_api_key(
    plan_active, other_merchant_with_key
):
    url = f"{plan_active.url}/cancel"
    body = {"reason": "x"}

    assert plan_active.shopper.post(url, body).status_code == 403
    other = APIClient()
    other.credentials(**bearer(other_merchant_with_key.api_key))
    assert other.post(url, body, format="json").status_code == 404
    assert PaymentPlan.objects.get(pk=plan_active.plan.pk).status == "active"


def test_a_cancel_without_a_reason_is_a_400(plan_active):
    response = APIClient().post(
        f"{plan_active.url}/cancel", {}, format="json", **plan_active.owner.headers
    )
    assert response.status_code == 400
    assert PaymentPlan.objects.get(pk=plan_active.plan.pk).status == "active"
