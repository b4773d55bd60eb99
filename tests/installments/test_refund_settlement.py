"""How a plan refund's processor refunds (parts) settle (DESIGN section 14):
asked after the commit under their own references, answered by the request,
by the processor's later word (the refund handlers) or by the poll; a failed
one puts every kobo back, by the fee rule on what the collection has left."""

import importlib
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import transaction
from django.db.models import F
from django.utils import timezone
from rest_framework.test import APIClient

from installments.plans.models import Installment, PaymentPlan
from installments.refunds import settlement
from installments.refunds.models import Refund, RefundPart
from payments.gateway.errors import ProcessorRefused, ProcessorTimeout
from payments.gateway.processors import get_processor
from payments.gateway.processors.sandbox.values import CARD_REFUNDS_FAIL
from payments.gateway.services.refunds import RefundOutcome
from payments.ledger.fees import platform_fee
from payments.ledger.models import PLATFORM_FEES, LedgerLine, LedgerTransaction
from payments.models import SandboxRefund

from .conftest import (
    check_ledger,
    collect,
    event_data,
    installments_of,
    refund,
)
from .refund_figures import fees, wallet
from .refund_plans import dispatch, plan_paid_with

UNPAID = 58_334 + 58_333 + 58_333
# Unpaid once the first installment is collected.
REST = 58_333 + 58_333
DEPOSIT = 75_000


def fee_kept_on(processor_reference: str) -> int:
    """What the fee account holds of one collection, from the ledger alone."""
    collection = LedgerTransaction.objects.get(
        kind="collection", processor_reference=processor_reference
    )
    given = LedgerLine.objects.filter(
        account=PLATFORM_FEES,
        transaction__kind__in=("refund", "refund_returned"),
        transaction__processor_reference=processor_reference,
    ).values_list("amount", flat=True)
    return collection.fee - sum(given)


def left_on(processor_reference: str) -> int:
    collected = LedgerTransaction.objects.get(
        kind="collection", processor_reference=processor_reference
    ).amount
    taken = RefundPart.objects.filter(collection_reference=processor_reference).exclude(
        status="failed"
    )
    return collected - sum(part.amount for part in taken)


def test_a_failed_refund_puts_every_kobo_back(db):
    setup = plan_paid_with(CARD_REFUNDS_FAIL)
    first = installments_of(setup.plan)[0]
    collect(first.due_date)
    wallet_before, fees_before = wallet(setup), fees()

    response = refund(setup, 200_000)

    data = response.json()["data"]
    assert response.status_code == 201
    assert data["status"] == "failed"
    assert [part["status"] for part in data["parts"]] == ["failed", "failed"]
    # What it did: the reductions only; the money failed and is refundable again.
    assert figures(data) == {
        "amount": REST,
        "amount_requested": 200_000,
        "amount_reduced": REST,
        "amount_returned": 0,
        "amount_pending": 0,
        "amount_failed": 200_000 - REST,
    }
    assert (wallet(setup), fees()) == (wallet_before, fees_before)
    plan = PaymentPlan.objects.get(pk=setup.plan.pk)
    # The reductions stay; the money is refundable again.
    assert plan.amount_refunded == REST
    assert [row.status for row in installments_of(plan)] == [
        "paid",
        "cancelled",
        "cancelled",
    ]
    merchant = setup.owner.merchant
    [failed] = event_data(merchant, "refund.failed")
    assert (failed["status"], failed["amount"], failed["amountFailed"]) == (
        "failed",
        REST,
        200_000 - REST,
    )
    assert event_data(merchant, "refund.processed") == []
    message = refund(setup, DEPOSIT + 58_334 + 1).json()["error"]["message"]
    assert f"at most {DEPOSIT + 58_334} kobo" in message
    check_ledger()


@pytest.fixture
def processor_says_pending(monkeypatch):
    """The processor takes every refund as `pending` and settles nothing until
    the test says so."""

    def pending(
        *, reference, transaction_reference, amount, currency, note, processor=None
    ):
        return RefundOutcome(
            reference, transaction_reference, f"rfd_{reference}", amount, "pending", ""
        )

    monkeypatch.setattr(settlement, "processor_refund_request", pending)


def test_a_failed_part_gives_the_fee_back_by_what_the_collection_has_left_then(
    plan_active, processor_says_pending
):
    refund(plan_active, UNPAID)  # no money: the deposit is all that is left
    deposit = f"{plan_active.plan.public_id}_d1"
    # 75,000 -> 74,980 keeps the fee (1875); 74,980 -> 74,960 gives 1 back.
    one = refund(plan_active, 20).json()["data"]
    two = refund(plan_active, 20).json()["data"]
    assert fee_kept_on(deposit) == platform_fee(74_960) == 1874

    dispatch(RefundPart.objects.get(reference=one["parts"][0]["reference"]), "failed")

    # Replaying the first part's own split (0) would keep 1874 on 74,980.
    assert left_on(deposit) == 74_980
    assert fee_kept_on(deposit) == platform_fee(74_980) == 1875
    assert Refund.objects.get(public_id=one["id"]).status == "failed"
    assert Refund.objects.get(public_id=two["id"]).status == "pending"
    check_ledger()


def test_the_processors_word_settles_a_part_once(plan_active, processor_says_pending):
    collect(installments_of(plan_active.plan)[0].due_date)
    data = refund(plan_active, REST + 10_000).json()["data"]
    part = RefundPart.objects.get(refund__public_id=data["id"])
    assert part.status == "pending"

    handled = dispatch(part, "processed")
    again = dispatch(part, "processed")
    late = dispatch(part, "failed")

    assert "outcome_apply" in handled[0] and again == handled and late == handled
    part.refresh_from_db()
    assert part.status == "processed"
    assert LedgerTransaction.objects.filter(kind="refund_settled").count() == 1
    assert LedgerTransaction.objects.filter(kind="refund_returned").count() == 0
    assert len(event_data(plan_active.owner.merchant, "refund.processed")) == 1
    check_ledger()


def test_a_refund_of_someone_else_is_not_the_plans(db):
    outcome = RefundOutcome("verification_ref", "trx", "1", 5000, "processed", "")
    assert settlement.outcome_apply(outcome) is False


def test_a_lost_answer_is_asked_again_with_the_same_reference_and_refunds_once(
    plan_active, monkeypatch
):
    collect(installments_of(plan_active.plan)[0].due_date)
    real = settlement.processor_refund_request

    def lost(**request):
        real(**request)  # the processor makes the refund; its answer is lost
        raise ProcessorTimeout()

    monkeypatch.setattr(settlement, "processor_refund_request", lost)
    data = refund(plan_active, REST + 10_000).json()["data"]
    assert [part["status"] for part in data["parts"]] == ["requesting"]
    monkeypatch.setattr(settlement, "processor_refund_request", real)

    assert settlement.parts_poll() == 0  # asked a moment ago: not yet
    with time_machine.travel(timezone.now() + timedelta(minutes=3)):
        assert settlement.parts_poll() == 1

    part = RefundPart.objects.get()
    assert (part.status, part.requests) == ("pending", 2)
    assert SandboxRefund.objects.count() == 1
    check_ledger()


def test_the_poll_settles_a_pending_part_the_processor_has_processed(plan_active):
    collect(installments_of(plan_active.plan)[0].due_date)
    refund(plan_active, REST + 10_000)
    get_processor().refunds_settle()  # processed there, not announced yet

    with time_machine.travel(timezone.now() + timedelta(minutes=11)):
        settlement.parts_poll()

    part = RefundPart.objects.get()
    assert part.status == "processed" and part.refund.status == "processed"
    assert len(event_data(plan_active.owner.merchant, "refund.processed")) == 1
    check_ledger()


def test_the_poll_applies_an_outcome_once_in_one_transaction(plan_active, monkeypatch):
    collect(installments_of(plan_active.plan)[0].due_date)
    refund(plan_active, REST + 10_000)
    get_processor().refunds_settle()  # processed there, not announced yet
    real_settle, real_atomic = settlement.part_settle, transaction.atomic
    settled, durable = [], []

    def settle_spy(**kwargs):
        settled.append(kwargs)
        return real_settle(**kwargs)

    def atomic_spy(*args, **kwargs):
        if kwargs.get("durable"):
            durable.append(kwargs)
        return real_atomic(*args, **kwargs)

    monkeypatch.setattr(settlement, "part_settle", settle_spy)
    monkeypatch.setattr(transaction, "atomic", atomic_spy)
    with time_machine.travel(timezone.now() + timedelta(minutes=11)):
        assert settlement.parts_poll() == 1

    monkeypatch.undo()
    part = RefundPart.objects.get()
    assert [each["status"] for each in settled] == ["processed"]
    assert len(durable) == 1  # the one transaction that applied it
    assert (part.status, part.refund.status) == ("processed", "processed")
    assert LedgerTransaction.objects.filter(kind="refund_settled").count() == 1
    assert len(event_data(plan_active.owner.merchant, "refund.processed")) == 1
    check_ledger()


def test_a_refund_the_processor_refuses_fails_and_gives_the_money_back(
    plan_active, monkeypatch
):
    collect(installments_of(plan_active.plan)[0].due_date)
    wallet_before, fees_before = wallet(plan_active), fees()

    def refuse(**request):
        raise ProcessorRefused(processor_message="Transaction has been fully reversed")

    monkeypatch.setattr(settlement, "processor_refund_request", refuse)
    data = refund(plan_active, REST + 10_000).json()["data"]

    assert data["status"] == "failed"
    assert (wallet(plan_active), fees()) == (wallet_before, fees_before)
    assert PaymentPlan.objects.get(pk=plan_active.plan.pk).amount_refunded == REST
    check_ledger()


def test_a_processed_part_moves_its_money_out_of_the_processor(plan_active):
    collect(installments_of(plan_active.plan)[0].due_date)
    data = refund(plan_active, REST + 10_000).json()["data"]
    part = RefundPart.objects.get(refund__public_id=data["id"])
    [requested] = LedgerTransaction.objects.filter(kind="refund")
    assert (requested.amount, requested.processor_reference) == (
        10_000,
        part.collection_reference,
    )
    assert requested.resource_type == "refund" and requested.resource_id == data["id"]

    settlement.part_settle(part_pk=part.pk, status="processed")

    [settled] = LedgerTransaction.objects.filter(kind="refund_settled")
    lines = dict(settled.lines.values_list("account", "amount"))
    assert lines == {"refunds_in_transit": 10_000, "processor_clearing": -10_000}
    assert Installment.objects.filter(status="cancelled").count() == 2
    check_ledger()


def test_a_part_another_worker_claimed_is_not_asked_for_twice(plan_active, monkeypatch):
    collect(installments_of(plan_active.plan)[0].due_date)
    asked = []

    def no_answer(**request):
        asked.append(request["reference"])
        raise ProcessorTimeout()

    monkeypatch.setattr(settlement, "processor_refund_request", no_answer)
    refund(plan_active, REST + 10_000)
    read_by_both = RefundPart.objects.get()

    settlement.part_request(part=read_by_both)  # the first worker's claim wins
    settlement.part_request(part=read_by_both)  # the second read the same row

    assert asked == [read_by_both.reference] * 2  # after the commit, then once
    assert RefundPart.objects.get().requests == 2


def figures(data: dict, *, prefix: str = "amount") -> dict:
    return {key: value for key, value in data.items() if key.startswith(prefix)}


def test_a_partly_failed_refund_and_its_plan_say_what_happened_at_every_moment(
    plan_active, processor_says_pending
):
    """Two parts: one fails while the other is still on its way, then the other
    goes through. At each moment the refund's figures, its plan's and their
    events agree with the parts (docs/refunds.md, "What a refund says it did")."""
    first = installments_of(plan_active.plan)[0]
    collect(first.due_date)
    first.refresh_from_db()
    deposit = f"{plan_active.plan.public_id}_d1"
    merchant = plan_active.owner.merchant
    client = APIClient()

    def plan_now() -> dict:
        return client.get(plan_active.url, **plan_active.owner.headers).json()["data"]

    data = refund(plan_active, 200_000).json()["data"]
    one, two = RefundPart.objects.filter(refund__public_id=data["id"])
    assert (one.collection_reference, one.amount) == (first.processor_reference, 58_334)
    assert (two.collection_reference, two.amount) == (deposit, 25_000)
    pending = {
        "amount": 200_000,
        "amount_requested": 200_000,
        "amount_reduced": REST,
        "amount_returned": 83_334,
        "amount_pending": 83_334,
        "amount_failed": 0,
    }
    assert figures(data) == pending
    plan = plan_now()
    assert (plan["amount_refunded"], plan["amount_refund_pending"]) == (200_000, 83_334)
    [cancelled] = event_data(merchant, "payment_plan.cancelled")
    assert (cancelled["amountRefunded"], cancelled["amountRefundPending"]) == (
        200_000,
        83_334,
    )

    dispatch(two, "failed")  # the deposit's part fails; part 1 is still on its way

    plan = plan_now()
    [listed] = plan["refunds"]
    assert listed["status"] == "pending"
    assert figures(listed) == {
        "amount": 175_000,
        "amount_requested": 200_000,
        "amount_reduced": REST,
        "amount_returned": 58_334,
        "amount_pending": 58_334,
        "amount_failed": 25_000,
    }
    assert (plan["amount_refunded"], plan["amount_refund_pending"]) == (175_000, 58_334)
    assert event_data(merchant, "refund.failed") == []
    check_ledger()

    dispatch(one, "processed")

    plan = plan_now()
    [listed] = plan["refunds"]
    done = {
        "amount": 175_000,
        "amount_requested": 200_000,
        "amount_reduced": REST,
        "amount_returned": 58_334,
        "amount_pending": 0,
        "amount_failed": 25_000,
    }
    assert (listed["status"], figures(listed)) == ("failed", done)
    assert (plan["amount_refunded"], plan["amount_refund_pending"]) == (175_000, 0)
    [failed] = event_data(merchant, "refund.failed")
    assert figures(failed) == {
        "amount": 175_000,
        "amountRequested": 200_000,
        "amountReduced": REST,
        "amountReturned": 58_334,
        "amountPending": 0,
        "amountFailed": 25_000,
    }
    assert [e["amount"] for e in event_data(merchant, "refund.created")] == [200_000]
    assert event_data(merchant, "refund.processed") == []
    check_ledger()


def test_check_ledger_catches_a_refund_that_still_counts_its_failed_money(db):
    """The defect of issue 25 item 1, written into the rows: a failed part's
    money still in the refund's `amount_returned` (and `amount`)."""
    setup = plan_paid_with(CARD_REFUNDS_FAIL)
    collect(installments_of(setup.plan)[0].due_date)
    data = refund(setup, 150_000).json()["data"]
    assert "clean" in check_ledger()

    Refund.objects.filter(public_id=data["id"]).update(
        amount=F("amount_requested"),
        amount_returned=F("amount_returned") + F("amount_failed"),
        amount_failed=0,
    )

    out = StringIO()
    with pytest.raises(CommandError):
        call_command("check_ledger", stdout=out)
    assert (
        f"refund {data['id']} says {REST} reduced, 33334 returned and 0 failed; "
        f"its rows say {REST}, 0 and 33334"
    ) in out.getvalue()
    assert "its refunds' amount 150000" in out.getvalue()


def test_the_migration_gives_past_refunds_their_true_figures(
    db, processor_says_pending
):
    """installments 0011: a refund made before it counted its failed parts in
    `amount` and `amount_returned`; after it, they are in `amount_failed`,
    exactly as a refund failing today, and back again on the way down."""
    migration = importlib.import_module(
        "installments.migrations.0011_refund_true_amounts"
    )
    setup = plan_paid_with(CARD_REFUNDS_FAIL)
    collect(installments_of(setup.plan)[0].due_date)
    reduced = refund(setup, 116_666).json()["data"]  # all off installments
    assert reduced["status"] == "processed"
    data = refund(setup, 60_000).json()["data"]  # 58,334 + 1,666: two parts
    one, two = RefundPart.objects.filter(refund__public_id=data["id"])
    dispatch(one, "failed")
    fields = ("amount_requested", "amount", "amount_returned", "amount_failed")
    live = list(Refund.objects.order_by("id").values_list(*fields))
    assert live[1] == (60_000, 60_000 - one.amount, two.amount, one.amount)
    migration.requested_amounts(apps, None)
    assert Refund.objects.get(public_id=data["id"]).amount == 60_000

    migration.true_amounts(apps, None)

    assert list(Refund.objects.order_by("id").values_list(*fields)) == live
    assert "clean" in check_ledger()
