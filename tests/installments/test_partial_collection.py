"""Partial collection (DESIGN section 15): at the last retry of a card, a soft
decline asks the processor for a partial debit of at least the merchant's
`partial_collection_min_percent` of what is owed; what it collects is the
installment's `amount_paid`, posted to the ledger and announced, and the rest
keeps one last try (the due date + 14 days), payable early meanwhile.

The sandbox's card 4084080000000060 only ever has part of the money: full
charges fail `insufficient_funds`, a partial debit collects 60% of what it asks
for."""

import csv
import io
from datetime import datetime, time, timedelta

import pytest
from django.core import mail
from django.utils import timezone
from rest_framework.test import APIClient

from config.api.formats import iso_utc
from config.exports import naira
from installments.collection import partial
from payments.gateway.processors import get_processor
from payments.gateway.processors.sandbox.values import CARD_PARTIAL_FUNDS
from payments.ledger.fees import platform_fee
from payments.models import (
    LedgerTransaction,
    PaymentMethod,
    SandboxAuthorization,
    SandboxTransaction,
)

from ..checkout.conftest import CARD_OK, add_card
from .conftest import (
    charges_for,
    check_ledger,
    collect,
    event_data,
    installments_of,
)
from .partial_plans import first_three_attempts, last_retry, partial_plan, refreshed

pytestmark = pytest.mark.django_db


def lagos(day, hour=10):
    return timezone.make_aware(datetime.combine(day, time(hour)))


def test_the_last_retry_collects_part_and_the_rest_keeps_one_more_try(db):
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    owed = first.amount

    first_three_attempts(first)
    # Nothing partial before the last retry.
    assert [c.reference for c in charges_for(first)] == [
        f"{first.public_id}_a{n}" for n in (1, 2, 3)
    ]
    assert refreshed(first).amount_paid == 0

    summary = last_retry(first)

    assert summary.tally.partial == 1
    reference = f"{first.public_id}_a4p"
    charges = list(charges_for(first))
    assert [c.reference for c in charges] == [
        *(f"{first.public_id}_a{n}" for n in (1, 2, 3, 4)),
        reference,
    ]
    collected = owed * 60 // 100
    debit = charges[-1]
    assert (debit.status, debit.amount) == ("success", collected)
    assert debit.metadata["at_least"] == -(-owed * 50 // 100)
    assert debit.metadata["requested"] == owed
    first = refreshed(first)
    assert (first.status, first.attempts) == ("failed", 4)
    assert (first.amount, first.amount_paid) == (owed, collected)
    assert first.partial_reference == first.processor_reference == reference
    assert first.last_failure_reason == "insufficient_funds"
    assert first.next_attempt_at == lagos(first.due_date + timedelta(days=14))
    setup.plan.refresh_from_db()
    assert setup.plan.status == "active"
    # The ledger holds the partial collection, with the fee on that amount.
    txn = LedgerTransaction.objects.get(kind="collection", reference=reference)
    assert (txn.amount, txn.fee, txn.net) == (
        collected,
        platform_fee(collected),
        collected - platform_fee(collected),
    )
    assert (txn.processor_reference, txn.resource_id) == (reference, first.public_id)
    [event] = event_data(setup.owner.merchant, "installment.partially_paid")
    assert event == {
        "resourceType": "installment",
        "resourceId": first.public_id,
        "paymentPlanId": setup.plan.public_id,
        "customerId": setup.plan.customer.public_id,
        "orderReference": setup.plan.order_reference,
        "amount": collected,
        "amountPaid": collected,
        "amountRemaining": owed - collected,
        "currency": "NGN",
        "processorReference": reference,
        "nextAttemptAt": iso_utc(first.next_attempt_at),
        "channel": "card",
    }
    assert not event_data(setup.owner.merchant, "installment.paid")
    # The plan's representation carries the money actually collected.
    data = setup.shopper.get(setup.url).json()["data"]
    assert data["installments"][0]["amount_paid"] == collected
    assert data["amount_paid"] == setup.plan.deposit_amount + collected
    assert data["amount_remaining"] == setup.plan.total_amount - (
        setup.plan.deposit_amount + collected
    )
    assert "clean" in check_ledger()


def test_the_rests_last_try_failing_defaults_without_a_second_partial(db):
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)
    last_retry(first)
    collected = refreshed(first).amount_paid

    summary = collect(first.due_date + timedelta(days=14))

    assert summary.tally.defaulted == 1
    first = refreshed(first)
    assert (first.status, first.attempts, first.amount_paid) == (
        "defaulted",
        5,
        collected,
    )
    assert [c.reference for c in charges_for(first)][-2:] == [
        f"{first.public_id}_a4p",
        f"{first.public_id}_a5",
    ]
    setup.plan.refresh_from_db()
    assert setup.plan.status == "defaulted"
    [defaulted] = event_data(setup.owner.merchant, "payment_plan.defaulted")
    assert defaulted["amountPaid"] == setup.plan.deposit_amount + collected
    assert "clean" in check_ledger()


def test_without_the_setting_the_last_retry_defaults_and_asks_nothing_partial(db):
    setup = partial_plan(percent=None)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)

    last_retry(first)

    first = refreshed(first)
    assert (first.status, first.amount_paid, first.partial_reference) == (
        "defaulted",
        0,
        "",
    )
    assert not charges_for(first).filter(reference__endswith="p").exists()
    assert not LedgerTransaction.objects.filter(reference__endswith="_a4p").exists()
    assert "clean" in check_ledger()


def test_a_hard_decline_at_the_last_retry_asks_nothing_partial(db):
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)
    # The bank withdraws the card's authorization before the last retry.
    card = PaymentMethod.objects.get(
        customer_id=setup.plan.customer_id, last4=CARD_PARTIAL_FUNDS[-4:]
    )
    get_processor().revoke_authorization(authorization_code=card.authorization_code)

    last_retry(first)

    first = refreshed(first)
    assert first.last_failure_reason == "authorization_revoked"
    assert (first.status, first.amount_paid) == ("defaulted", 0)
    assert not charges_for(first).filter(reference__endswith="p").exists()
    assert "clean" in check_ledger()


def test_less_than_the_minimum_collects_nothing_and_the_plan_defaults(db):
    # The card has 60% of what is owed; the merchant asks for at least 70%.
    setup = partial_plan(percent=70)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)

    last_retry(first)

    first = refreshed(first)
    assert (first.status, first.amount_paid) == ("defaulted", 0)
    # Asked once, declined: the reference stays, so it is never asked again.
    assert first.partial_reference == f"{first.public_id}_a4p"
    [debit] = charges_for(first).filter(reference=first.partial_reference)
    assert (debit.status, debit.metadata["at_least"]) == (
        "failed",
        -(-first.amount * 70 // 100),
    )
    assert not LedgerTransaction.objects.filter(
        reference=first.partial_reference
    ).exists()
    assert not event_data(setup.owner.merchant, "installment.partially_paid")
    assert "clean" in check_ledger()


@pytest.mark.parametrize(
    ("owed", "percent", "at_least"),
    [
        (100_000, 50, 50_000),
        (33_335, 33, 11_001),  # 11 000.55 rounds up
        (1, 1, 1),
        (99_999, 99, 99_000),  # 98 999.01 rounds up
        (20_000, 25, 5_000),
    ],
)
def test_at_least_is_the_percent_of_what_is_owed_rounded_up(owed, percent, at_least):
    assert partial.at_least_of(owed, percent) == at_least


def test_the_customer_is_told_what_was_collected_and_what_is_left(db, committed):
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)
    mail.outbox.clear()

    with committed():
        last_retry(first)

    first = refreshed(first)
    rest = first.amount - first.amount_paid
    [email] = [m for m in mail.outbox if "part of your installment" in m.subject]
    assert email.to == [setup.plan.customer.email]
    assert f"NGN {first.amount_paid // 100:,}" in email.body
    assert f"NGN {rest // 100:,}" in email.body
    assert "/account/" in email.body


def test_paying_early_after_a_partial_charges_only_the_rest(db):
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)
    last_retry(first)
    first = refreshed(first)
    rest = first.amount - first.amount_paid
    card = add_card(setup.shopper, CARD_OK)

    response = setup.shopper.post(
        f"{setup.url}/pay",
        {"installment_id": first.public_id, "payment_method_id": card},
    )

    assert response.status_code == 200, response.content
    first = refreshed(first)
    assert first.status == "paid"
    [early] = SandboxTransaction.objects.filter(reference=f"{first.public_id}_p1")
    assert (early.status, early.amount) == ("success", rest)
    rest_collection = LedgerTransaction.objects.get(
        kind="collection", reference=first.public_id
    )
    assert rest_collection.amount == rest
    total = LedgerTransaction.objects.filter(
        kind="collection", resource_id=first.public_id
    )
    assert sum(t.amount for t in total) == first.amount
    [paid] = event_data(setup.owner.merchant, "installment.paid")
    assert paid["amount"] == rest
    data = response.json()["data"]
    assert data["amount_paid"] == setup.plan.deposit_amount + first.amount
    assert "clean" in check_ledger()


def test_the_engines_last_try_after_a_partial_charges_only_the_rest(db):
    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)
    last_retry(first)
    # The customer's salary came in: their card now has the money.
    card = PaymentMethod.objects.get(
        customer_id=setup.plan.customer_id, last4=CARD_PARTIAL_FUNDS[-4:]
    )
    SandboxAuthorization.objects.filter(
        authorization_code=card.authorization_code
    ).update(behaviour=SandboxAuthorization.Behaviour.SUCCEEDS)

    collect(first.due_date + timedelta(days=14))

    first = refreshed(first)
    rest = first.amount - first.amount_paid
    assert (first.status, first.attempts) == ("paid", 5)
    last = charges_for(first).last()
    assert (last.reference, last.amount) == (f"{first.public_id}_a5", rest)
    [paid] = event_data(setup.owner.merchant, "installment.paid")
    assert (paid["amount"], paid["processorReference"]) == (rest, last.reference)
    assert "clean" in check_ledger()


def test_a_paid_installment_reports_all_of_its_amount_paid_however_it_was_paid(db):
    """`amount_paid` of a paid installment is its whole amount, in the API and
    the CSV: the one paid in a partial collection and its rest, as the one
    paid at once; the plan's `amount_paid` adds up the same figures."""
    setup = partial_plan(percent=50)
    first, second = installments_of(setup.plan)[:2]
    first_three_attempts(first)
    last_retry(first)
    add_card(setup.shopper, CARD_OK)  # a card that pays the rest and the next
    collect(first.due_date + timedelta(days=14))
    collect(second.due_date)
    first, second = refreshed(first), refreshed(second)
    assert (first.status, second.status) == ("paid", "paid")
    assert 0 < first.amount_paid < first.amount  # the partial part, kept inside

    data = setup.shopper.get(setup.url).json()["data"]
    api = APIClient()
    rows = api.get(
        f"/api/v1/installments?due_to={second.due_date}&format=csv",
        **setup.owner.headers,
    )
    csv_rows = {
        row["id"]: row
        for row in csv.DictReader(
            io.StringIO(b"".join(rows.streaming_content).decode())
        )
    }

    reported = {i["id"]: i["amount_paid"] for i in data["installments"][:2]}
    assert reported == {first.public_id: first.amount, second.public_id: second.amount}
    for installment in (first, second):
        row = csv_rows[installment.public_id]
        assert int(row["amount_paid"]) == installment.amount
        assert row["amount_paid_naira"] == naira(installment.amount)
    assert data["amount_paid"] == setup.plan.deposit_amount + sum(reported.values())


def test_a_partial_debit_that_finds_all_that_is_owed_pays_the_installment(
    monkeypatch,
):
    from payments.gateway.processors import sandbox

    setup = partial_plan(percent=50)
    first = installments_of(setup.plan)[0]
    first_three_attempts(first)
    # The salary lands between the last retry's full charge and its partial
    # debit: the partial debit finds all of it.
    monkeypatch.setattr(sandbox, "_available", lambda auth, amount, reference: amount)

    last_retry(first)

    first = refreshed(first)
    reference = f"{first.public_id}_a4p"
    assert (first.status, first.amount_paid) == ("paid", 0)
    assert first.processor_reference == reference
    collection = LedgerTransaction.objects.get(
        kind="collection", resource_id=first.public_id
    )
    assert (collection.reference, collection.amount) == (first.public_id, first.amount)
    assert collection.processor_reference == reference
    [paid] = event_data(setup.owner.merchant, "installment.paid")
    assert (paid["amount"], paid["processorReference"]) == (first.amount, reference)
    assert not event_data(setup.owner.merchant, "installment.partially_paid")
    assert "clean" in check_ledger()
