"""The auto-debit engine collects a plan to completion (`collect_installments
--date`): events at a real receiver, the ledger to the kobo, check_ledger clean."""

import hashlib
import hmac
import json
from datetime import timedelta

import pytest
from django.utils import timezone

from installments.plans.models import Installment, PaymentPlan
from payments.ledger.models import PLATFORM_FEES
from payments.ledger.selectors import account_balance, wallet_available_balance
from payments.models import Customer, LedgerTransaction

from ..conftest import make_merchant_with_key
from ..webhooks.conftest import SECRET
from .conftest import (
    charges_for,
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
)

# Real commits: events are delivered after them, and the engine's processor
# calls run on its threads as in production.
pytestmark = pytest.mark.django_db(transaction=True)

PAID_FIELDS = {
    "resourceType",
    "resourceId",
    "paymentPlanId",
    "customerId",
    "orderReference",
    "amount",
    "currency",
    "processorReference",
    "channel",
}


def fee(amount: int) -> int:
    """2.5%, half up, per payment (DESIGN section 8), written out again here."""
    return (amount * 25 + 500) // 1000


def delivered(receiver, event_type: str) -> list[dict]:
    envelopes = []
    for item in receiver.received:
        envelope = json.loads(item.body)
        if envelope["eventType"] == event_type:
            expected = hmac.new(SECRET.encode(), item.body, hashlib.sha256).hexdigest()
            assert item.headers["x-service-signature"] == expected
            envelopes.append(envelope)
    return envelopes


@pytest.fixture
def subscribed_plan(receiver):
    owner = make_merchant_with_key(webhook_url=receiver.url, webhook_secret=SECRET)
    return make_active_plan(owner)


def test_a_three_installment_plan_runs_to_completion(subscribed_plan):
    plan = subscribed_plan.plan
    first, second, third = installments_of(plan)
    assert [i.amount for i in (first, second, third)] == [58_334, 58_333, 58_333]

    # The day before the first due date nothing is due.
    summary = collect(first.due_date - timedelta(days=1))
    assert summary.claimed == 0
    for due in (first.due_date, second.due_date, third.due_date):
        summary = collect(due)
        assert (summary.claimed, summary.resumed, summary.tally.paid) == (1, 0, 1)

    plan.refresh_from_db()
    assert plan.status == PaymentPlan.Status.COMPLETED
    assert plan.completed_at is not None
    for installment in installments_of(plan):
        assert installment.status == Installment.Status.PAID
        assert installment.attempts == 1
        assert installment.processor_reference == f"{installment.public_id}_a1"
        assert installment.next_attempt_at is None
        assert [c.reference for c in charges_for(installment)] == [
            f"{installment.public_id}_a1"
        ]


def test_each_installment_is_announced_twice_with_the_specs_fields(
    subscribed_plan, receiver
):
    plan = subscribed_plan.plan
    installments = installments_of(plan)
    for installment in installments:
        collect(installment.due_date)

    for event_type in ("payment_plan.installment_paid", "installment.paid"):
        envelopes = delivered(receiver, event_type)
        assert len(envelopes) == 3
        for envelope, installment in zip(envelopes, installments, strict=True):
            assert envelope["merchantId"] == plan.merchant.public_id
            assert envelope["eventId"].startswith("evt_")
            assert envelope["createdAt"].endswith("Z")
            data = envelope["data"]
            assert set(data) == PAID_FIELDS
            assert data == {
                "resourceType": "installment",
                "resourceId": installment.public_id,
                "paymentPlanId": plan.public_id,
                "customerId": plan.customer.public_id,
                "orderReference": plan.order_reference,
                "amount": installment.amount,
                "currency": "NGN",
                "processorReference": f"{installment.public_id}_a1",
                "channel": "card",
            }
    # Same payload under both names, two deliveries (distinct event ids).
    old = delivered(receiver, "payment_plan.installment_paid")
    new = delivered(receiver, "installment.paid")
    assert [e["data"] for e in old] == [e["data"] for e in new]
    assert {e["eventId"] for e in old}.isdisjoint({e["eventId"] for e in new})


def test_the_wallet_holds_97_5_percent_of_everything_collected_to_the_kobo(
    subscribed_plan,
):
    plan = subscribed_plan.plan
    for installment in installments_of(plan):
        collect(installment.due_date)

    payments = [plan.deposit_amount] + [i.amount for i in installments_of(plan)]
    assert sum(payments) == plan.total_amount == 250_000
    fees = sum(fee(amount) for amount in payments)
    assert fees == 1_875 + 3 * 1_458
    assert wallet_available_balance(plan.merchant) == plan.total_amount - fees
    assert -account_balance(PLATFORM_FEES) == fees
    collections = LedgerTransaction.objects.filter(kind="collection")
    assert sorted(collections.values_list("reference", flat=True)) == sorted(
        [i.public_id for i in installments_of(plan)]
        + list(plan.deposit_attempts.values_list("reference", flat=True))
    )
    assert "check_ledger: clean" in check_ledger()


def test_a_collection_raises_the_customers_score(subscribed_plan):
    plan = subscribed_plan.plan
    first, second, third = installments_of(plan)

    collect(first.due_date)
    assert Customer.objects.get(pk=plan.customer_id).score == 500 + 20

    collect(third.due_date)  # the second and third at once
    # Three paid on their first attempt and one completed plan.
    assert Customer.objects.get(pk=plan.customer_id).score == 500 + 3 * 20 + 50


def test_goods_are_released_after_the_configured_number_of_installments(receiver):
    owner = make_merchant_with_key(
        webhook_url=receiver.url,
        webhook_secret=SECRET,
        release_rule="after_installments:2",
    )
    plan = make_active_plan(owner).plan
    assert delivered(receiver, "goods.release") == []
    first, second, third = installments_of(plan)

    collect(first.due_date)
    assert delivered(receiver, "goods.release") == []
    collect(second.due_date)
    collect(third.due_date)

    [release] = delivered(receiver, "goods.release")
    assert release["data"] == {
        "resourceType": "payment_plan",
        "resourceId": plan.public_id,
        "orderReference": plan.order_reference,
    }
    plan.refresh_from_db()
    assert plan.goods_released_at is not None


def test_goods_are_released_on_completion_once(receiver):
    owner = make_merchant_with_key(
        webhook_url=receiver.url, webhook_secret=SECRET, release_rule="on_completion"
    )
    plan = make_active_plan(owner).plan
    last = installments_of(plan)[-1]

    collect(last.due_date - timedelta(days=1))  # two of three
    assert delivered(receiver, "goods.release") == []
    collect(last.due_date)
    collect(last.due_date + timedelta(days=30))  # nothing left: no repeat

    assert len(delivered(receiver, "goods.release")) == 1


def test_an_installment_is_not_collected_before_its_due_date(plan_active):
    first = installments_of(plan_active.plan)[0]
    summary = collect(first.due_date - timedelta(days=1))

    assert summary.claimed == 0
    first.refresh_from_db()
    assert (first.status, first.attempts) == ("scheduled", 0)
    assert not charges_for(first).exists()


def test_a_pass_without_a_date_collects_what_is_due_now(plan_active):
    first = installments_of(plan_active.plan)[0]
    Installment.objects.filter(pk=first.pk).update(
        next_attempt_at=timezone.now() - timedelta(minutes=1)
    )

    summary = collect()

    assert summary.claimed == 1
    first.refresh_from_db()
    assert first.status == "paid"
