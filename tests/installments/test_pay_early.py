"""Paying early (DESIGN section 14): `POST /api/v1/payment-plans/{id}/pay` pays
one installment or everything left in one charge, with its own references; a
decline leaves every installment exactly as it was and never counts against the
customer; only the plan's customer may pay it."""

from datetime import timedelta

import pytest
from rest_framework.test import APIClient

from installments.early.models import EarlyPayment
from installments.plans.history import InstallmentStatusChange
from installments.plans.models import Installment
from payments.models import Customer, LedgerTransaction, SandboxTransaction
from webhooks.models import Event

from ..checkout.conftest import CARD_POOR, add_card, register
from ..conftest import bearer, merchant_jwt
from ..payments.conftest import add_bank, sign_in
from .conftest import (
    charges_for,
    check_ledger,
    collect,
    installments_of,
    make_active_plan,
)
from .failed_collections import make_default, only_card

pytestmark = pytest.mark.django_db


def pay(setup, shopper=None, **body):
    return (shopper or setup.shopper).post(f"{setup.url}/pay", body)


def early_charges(reference_prefix: str):
    return SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE,
        reference__startswith=reference_prefix,
    ).order_by("id")


def events_of(plan, event_type: str) -> list[dict]:
    return [
        event.data
        for event in Event.objects.filter(
            merchant=plan.merchant, event_type=event_type
        ).order_by("id")
    ]


def snapshot(installment: Installment) -> tuple:
    installment.refresh_from_db()
    return (
        installment.status,
        installment.attempts,
        installment.next_attempt_at,
        installment.last_failure_reason,
        installment.processor_reference,
    )


def score_of(setup) -> int:
    return Customer.objects.get(pk=setup.plan.customer_id).score


# --- one installment ---------------------------------------------------------


def test_paying_one_installment_early_charges_it_once_under_its_own_reference(
    plan_active,
):
    setup = plan_active
    first, second, third = installments_of(setup.plan)

    response = pay(setup, installment_id=second.public_id)

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert [(i["status"], i["attempts"]) for i in data["installments"]] == [
        ("scheduled", 0),
        ("paid", 1),
        ("scheduled", 0),
    ]
    assert data["amount_paid"] == setup.plan.deposit_amount + second.amount
    second.refresh_from_db()
    reference = f"{second.public_id}_p1"
    assert (second.status, second.processor_reference) == ("paid", reference)
    assert second.next_attempt_at is None
    assert [(c.reference, c.amount) for c in early_charges(second.public_id)] == [
        (reference, second.amount)
    ]
    collection = LedgerTransaction.objects.get(
        kind="collection", reference=second.public_id
    )
    assert (collection.amount, collection.processor_reference) == (
        second.amount,
        reference,
    )
    assert (collection.resource_type, collection.resource_id) == (
        "installment",
        second.public_id,
    )
    payment = EarlyPayment.objects.get()
    assert (payment.kind, payment.status, payment.reference) == (
        "installment",
        "succeeded",
        reference,
    )
    for event_type in ("installment.paid", "payment_plan.installment_paid"):
        [paid] = events_of(setup.plan, event_type)
        assert (paid["resourceId"], paid["processorReference"]) == (
            second.public_id,
            reference,
        )
        assert paid["amount"] == second.amount
    assert "clean" in check_ledger()


def test_the_engine_never_collects_an_installment_paid_early(plan_active):
    setup = plan_active
    first = installments_of(setup.plan)[0]
    assert pay(setup, installment_id=first.public_id).status_code == 200

    assert collect(first.due_date).claimed == 0

    assert [c.reference for c in early_charges(first.public_id)] == [
        f"{first.public_id}_p1"
    ]
    assert not charges_for(first).exists()
    assert "clean" in check_ledger()


def test_paying_a_failed_installment_counts_one_more_attempt(plan_active):
    setup = plan_active
    only_card(setup, CARD_POOR)
    first = installments_of(setup.plan)[0]
    collect(first.due_date)  # declined: failed after 1 attempt
    good = add_card(setup.shopper)

    response = pay(setup, installment_id=first.public_id, payment_method_id=good)

    assert response.status_code == 200, response.content
    first.refresh_from_db()
    assert (first.status, first.attempts, first.next_attempt_at) == ("paid", 2, None)
    assert first.processor_reference == f"{first.public_id}_p1"
    assert "clean" in check_ledger()


# --- declined ------------------------------------------------------------------


def test_a_declined_early_payment_leaves_every_installment_as_it_was(plan_active):
    setup = plan_active
    only_card(setup, CARD_POOR)
    first, second, third = installments_of(setup.plan)
    collect(first.due_date)  # the engine's declined attempt: failed, retry set
    before = [snapshot(row) for row in (first, second, third)]
    assert before[0][:2] == ("failed", 1) and before[0][2] is not None
    assert before[0][3] == "insufficient_funds"
    score = score_of(setup)
    failed_events = events_of(setup.plan, "payment.failed")
    history = InstallmentStatusChange.objects.filter(to_status="failed").count()

    one = pay(setup, installment_id=first.public_id)
    everything = pay(setup, payoff=True)

    for response in (one, everything):
        assert response.status_code == 402, response.content
        assert response.json()["error"]["code"] == "payment_failed"
        assert "insufficient funds" in response.json()["error"]["message"]
    assert [snapshot(row) for row in (first, second, third)] == before
    assert score_of(setup) == score
    assert events_of(setup.plan, "payment.failed") == failed_events
    # The put-back is recorded, naming the early payment: no failed attempt.
    engine_failures = InstallmentStatusChange.objects.filter(
        to_status="failed", early_payment__isnull=True
    )
    assert engine_failures.count() == history
    put_back = InstallmentStatusChange.objects.filter(
        from_status="processing", early_payment__isnull=False
    )
    assert sorted(put_back.values_list("to_status", flat=True)) == [
        "failed",
        "failed",
        "scheduled",
        "scheduled",
    ]
    assert list(
        EarlyPayment.objects.order_by("id").values_list("reference", "status")
    ) == [
        (f"{first.public_id}_p1", "failed"),
        (f"{setup.plan.public_id}_po1", "failed"),
    ]
    assert not LedgerTransaction.objects.filter(
        kind="collection", resource_type="installment"
    ).exists()
    # The retry schedule is untouched: the engine retries the next day.
    assert collect(first.due_date).claimed == 0
    assert collect(first.due_date + timedelta(days=1)).claimed == 1
    assert snapshot(first)[:2] == ("failed", 2)
    assert "clean" in check_ledger()


def test_a_declined_reference_is_never_charged_again(plan_active):
    setup = plan_active
    poor = add_card(setup.shopper, CARD_POOR)
    first = installments_of(setup.plan)[0]
    assert (
        pay(setup, installment_id=first.public_id, payment_method_id=poor).status_code
        == 402
    )

    response = pay(setup, installment_id=first.public_id)

    assert response.status_code == 200, response.content
    assert [c.reference for c in early_charges(first.public_id)] == [
        f"{first.public_id}_p1",
        f"{first.public_id}_p2",
    ]
    first.refresh_from_db()
    assert (first.attempts, first.processor_reference) == (1, f"{first.public_id}_p2")
    assert "clean" in check_ledger()


# --- payoff -------------------------------------------------------------------


def test_a_payoff_is_one_charge_and_one_collection_and_completes_the_plan(
    plan_active,
):
    setup = plan_active
    rows = installments_of(setup.plan)
    left = sum(row.amount for row in rows)
    reference = f"{setup.plan.public_id}_po1"

    response = pay(setup, payoff=True)

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert data["status"] == "completed"
    assert (data["amount_paid"], data["amount_remaining"]) == (
        setup.plan.total_amount,
        0,
    )
    assert [(i["status"], i["attempts"]) for i in data["installments"]] == [
        ("paid", 1)
    ] * 3
    assert [(c.reference, c.amount) for c in early_charges(reference)] == [
        (reference, left)
    ]
    assert not SandboxTransaction.objects.filter(reference__startswith="inst_")
    [collection] = LedgerTransaction.objects.filter(
        kind="collection", processor_reference=reference
    )
    assert (collection.reference, collection.amount) == (reference, left)
    assert (collection.resource_type, collection.resource_id) == (
        "payment_plan",
        setup.plan.public_id,
    )
    assert LedgerTransaction.objects.filter(kind="collection").count() == 2  # +deposit
    for row in rows:
        row.refresh_from_db()
        assert (row.status, row.processor_reference) == ("paid", reference)
    assert len(events_of(setup.plan, "installment.paid")) == 3
    assert events_of(setup.plan, "payment_plan.completed") == [
        {
            "resourceType": "payment_plan",
            "resourceId": setup.plan.public_id,
            "orderReference": setup.plan.order_reference,
            "amountPaid": setup.plan.total_amount,
            "amountRefunded": 0,
            "amountRefundPending": 0,
            "amountRemaining": 0,
        }
    ]
    # Three installments paid on their first attempt and one completed plan.
    assert score_of(setup) == 500 + 3 * 20 + 50
    assert collect(rows[-1].due_date).claimed == 0
    assert "clean" in check_ledger()


def test_a_payoff_after_one_installment_pays_only_what_is_left(plan_active):
    setup = plan_active
    first, second, third = installments_of(setup.plan)
    collect(first.due_date)

    response = pay(setup, payoff=True)

    assert response.status_code == 200, response.content
    [charge] = early_charges(f"{setup.plan.public_id}_po")
    assert charge.amount == second.amount + third.amount
    assert response.json()["data"]["status"] == "completed"
    assert len(events_of(setup.plan, "payment_plan.completed")) == 1
    assert "clean" in check_ledger()


def test_the_release_rule_on_completion_fires_with_the_payoff(db):
    setup = make_active_plan()
    setup.plan.merchant.release_rule = "on_completion"
    setup.plan.merchant.save(update_fields=["release_rule"])

    assert pay(setup, payoff=True).status_code == 200

    assert len(events_of(setup.plan, "goods.release")) == 1
    setup.plan.refresh_from_db()
    assert setup.plan.goods_released_at is not None


# --- who may pay, and what is refused ----------------------------------------


def test_a_merchant_may_read_a_plan_but_never_pay_it(plan_active):
    setup = plan_active
    first = installments_of(setup.plan)[0]
    body = {"installment_id": first.public_id}

    with_key = APIClient().post(
        f"{setup.url}/pay", body, format="json", **setup.owner.headers
    )
    with_jwt = APIClient().post(
        f"{setup.url}/pay",
        body,
        format="json",
        **bearer(merchant_jwt(setup.owner.merchant)),
    )

    assert (with_key.status_code, with_jwt.status_code) == (403, 403)
    assert snapshot(first)[:2] == ("scheduled", 0)
    assert not EarlyPayment.objects.exists()


def test_another_customers_plan_is_a_404(plan_active):
    setup = plan_active
    stranger = register("eve@mail.example.com")
    add_card(stranger)
    first = installments_of(setup.plan)[0]

    response = pay(setup, stranger, installment_id=first.public_id)

    assert response.status_code == 404
    assert snapshot(first)[:2] == ("scheduled", 0)
    # No early payment's charge (`<inst>_p<k>`, `<plan>_po<k>`). A substring
    # match would be wrong: SQLite's LIKE ignores case, and a random plan id may
    # hold "_P" (plan_P...), which the deposit's `<plan>_d1` then carries.
    assert not SandboxTransaction.objects.filter(reference__regex=r"_po?[0-9]+$")


def test_another_customers_payment_method_is_a_404(plan_active):
    setup = plan_active
    stranger = register("eve@mail.example.com")
    their_card = add_card(stranger)

    response = pay(setup, payoff=True, payment_method_id=their_card)

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "payment_method_not_found"
    assert not EarlyPayment.objects.exists()


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"payoff": False},
        {"payoff": True, "installment_id": "inst_x"},
        {"payoff": "yes"},
        {"installment_id": 7},
        {"installment_id": "inst_x", "amount": 100},
    ],
)
def test_a_body_that_names_neither_or_both_is_a_400(plan_active, body):
    response = pay(plan_active, **body)

    assert response.status_code == 400, response.content
    assert not EarlyPayment.objects.exists()


def test_an_installment_of_another_plan_is_a_404(plan_active):
    other = make_active_plan(email="bola@mail.example.com")
    theirs = installments_of(other.plan)[0]

    for installment_id in (theirs.public_id, "inst_nothing", "not-an-id"):
        response = pay(plan_active, installment_id=installment_id)
        assert response.status_code == 404, response.content
    assert not EarlyPayment.objects.exists()


def test_a_paid_installment_and_a_completed_plan_are_409(plan_active):
    setup = plan_active
    first = installments_of(setup.plan)[0]
    assert pay(setup, installment_id=first.public_id).status_code == 200

    again = pay(setup, installment_id=first.public_id)
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "installment_not_payable"

    assert pay(setup, payoff=True).status_code == 200
    done = pay(setup, payoff=True)
    assert done.status_code == 409
    assert done.json()["error"]["code"] == "plan_not_collectable"
    assert EarlyPayment.objects.count() == 2


def test_an_installment_being_collected_is_a_409(plan_active):
    setup = plan_active
    first = installments_of(setup.plan)[0]
    # The engine has claimed it (its charge in flight).
    first.transition_to(Installment.Status.PROCESSING)

    for body in ({"installment_id": first.public_id}, {"payoff": True}):
        response = pay(setup, **body)
        assert response.status_code == 409, response.content
        assert response.json()["error"]["code"] == "payment_in_progress"
    assert not EarlyPayment.objects.exists()


def test_without_a_method_named_or_active_it_is_a_422(plan_active):
    setup = plan_active
    card = setup.plan.customer.payment_methods.get()
    deleted = setup.shopper.client.delete(f"/api/v1/payment-methods/{card.public_id}")
    assert deleted.status_code == 200

    response = pay(setup, payoff=True)

    assert response.status_code == 422
    assert response.json()["error"]["code"] == "no_payment_method"


def test_the_default_method_pays_when_none_is_named(plan_active):
    setup = plan_active
    card = setup.plan.customer.payment_methods.get()
    bank = add_bank(sign_in(setup.plan.customer), is_default=True)["id"]
    first, second, _ = installments_of(setup.plan)

    assert pay(setup, installment_id=first.public_id).status_code == 200
    make_default(setup, card.public_id)
    assert pay(setup, installment_id=second.public_id).status_code == 200

    assert [
        p.payment_method.public_id for p in EarlyPayment.objects.order_by("id")
    ] == [
        bank,
        card.public_id,
    ]
