"""Endpoint 24's refund events (`refund.pending|processing|processed|failed|
needs-attention`): each re-verified with `GET /refund/:id` before anything
changes, then handed to the refund handlers once; with the sandbox processor."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from rest_framework.test import APIClient

from payments.gateway.processors import get_processor
from payments.gateway.services import (
    RefundOutcome,
    paystack_events_retry,
    processor_refund_request,
    sandbox_refunds_settle,
)
from payments.models import InboundRequest, ProcessorEvent, SandboxRefund

from .conftest import CARD_REFUNDS_FAIL, COLLECTED, collect, signed_post

pytestmark = pytest.mark.django_db

URL = "/api/v1/webhooks/paystack"


def ask(reference="rf_abc_1", transaction_reference="inst_1_a1", amount=100_000):
    return processor_refund_request(
        reference=reference, transaction_reference=transaction_reference, amount=amount
    )


def paystack_event(event: str, transaction_reference: str, **data) -> dict:
    """As Paystack sends them: the transaction's reference, often no refund id."""
    return {
        "event": event,
        "data": {
            "status": event.removeprefix("refund."),
            "transaction_reference": transaction_reference,
            "refund_reference": None,
            "amount": "100000",
            "currency": "NGN",
            "processor": "mpgs_zen",
            "customer": {"email": "alice@mail.example.com"},
            "integration": 412829,
            "domain": "test",
            **data,
        },
    }


def post(payload):
    response = signed_post(APIClient(), URL, payload)
    assert response.status_code == 200, response.content
    return InboundRequest.objects.order_by("-pk").first()


def test_a_forged_refund_processed_changes_nothing(collection, seen):
    asked = ask()

    inbound = post(paystack_event("refund.processed", collection))

    assert seen == []
    assert SandboxRefund.objects.get().status == "pending"
    assert not ProcessorEvent.objects.exists()
    assert inbound.outcome == ""
    assert "NotSettled" in inbound.error
    assert "pending" in inbound.error
    # Once the processor did process it, the same event (tried again) settles it.
    get_processor().refunds_settle()
    with time_machine.travel(timezone.now() + timedelta(minutes=6)):
        assert paystack_events_retry() == 1
    inbound.refresh_from_db()
    assert inbound.outcome == "handled"
    assert [(o.reference, o.refund_id, o.status) for o in seen] == [
        ("rf_abc_1", asked.refund_id, "processed")
    ]


def test_refund_processed_is_verified_and_handled_once(collection, seen):
    asked = ask()
    get_processor().refunds_settle()  # the processor processed it
    event = paystack_event("refund.processed", collection)

    first, again = post(event), post(event)

    assert (first.outcome, again.outcome) == ("handled", "duplicate")
    assert seen == [
        RefundOutcome(
            reference="rf_abc_1",
            transaction_reference=collection,
            refund_id=asked.refund_id,
            amount=100_000,
            status="processed",
            processor_status="processed",
        )
    ]
    row = ProcessorEvent.objects.get()
    assert (row.kind, row.key) == ("refund.processed", asked.refund_id)
    assert "plan_refunds" in row.note
    # The pass then sends the sandbox's own event: already handled.
    assert sandbox_refunds_settle() == 1
    assert len(seen) == 1


def test_an_event_about_one_of_several_refunds_waits_for_the_one_not_settled(
    collection, seen
):
    """Paystack's `refund.processed` names the transaction, not the refund: with
    one refund processed and handled, another still pending, the event may be
    about the pending one, so it waits (nothing changes) until GET says so."""
    first = ask("rf_a_1", amount=100_000)
    sandbox_refunds_settle()
    second = ask("rf_b_1", amount=50_000)
    assert [o.reference for o in seen] == ["rf_a_1"]

    inbound = post(paystack_event("refund.processed", collection))

    assert "NotSettled" in inbound.error
    assert [o.refund_id for o in seen] == [first.refund_id]
    get_processor().refunds_settle()
    inbound = post(paystack_event("refund.processed", collection))
    assert inbound.outcome == "handled"
    assert [o.refund_id for o in seen] == [first.refund_id, second.refund_id]


def test_refund_failed_reaches_the_handlers_as_failed(alice, seen):
    reference = collect(alice, CARD_REFUNDS_FAIL, "inst_9_a1")
    asked = ask(transaction_reference=reference, amount=COLLECTED)

    inbound = post(paystack_event("refund.failed", reference))

    assert inbound.outcome == "handled"
    assert [(o.refund_id, o.status) for o in seen] == [(asked.refund_id, "failed")]


def test_an_event_naming_the_refund_is_verified_by_its_id(collection, seen):
    asked = ask()
    ask("rf_b_1", amount=10_000)

    inbound = post(
        paystack_event("refund.pending", collection, id=asked.refund_id.upper())
    )
    assert inbound.outcome == "ignored: the processor knows no such refund"

    inbound = post(paystack_event("refund.pending", collection, id=asked.refund_id))

    assert inbound.outcome == "handled"
    assert [(o.refund_id, o.status) for o in seen] == [(asked.refund_id, "pending")]


def test_an_event_whose_id_belongs_to_another_transaction_is_ignored(alice, seen):
    collection = collect(alice)
    other = collect(alice, reference="inst_2_a1")
    asked = ask(transaction_reference=other)
    get_processor().refunds_settle()

    inbound = post(paystack_event("refund.processed", collection, id=asked.refund_id))

    assert inbound.outcome == "ignored: the processor knows no such refund"
    assert seen == []


def test_an_event_the_processor_contradicts_with_a_final_status_is_ignored(alice, seen):
    reference = collect(alice, CARD_REFUNDS_FAIL, "inst_9_a1")
    ask(transaction_reference=reference, amount=COLLECTED)

    inbound = post(paystack_event("refund.processed", reference))

    assert inbound.outcome == "ignored: the processor says the refund is failed"
    assert seen == []


def test_a_refund_event_without_a_transaction_reference_is_refused(db, seen):
    inbound = post({"event": "refund.processed", "data": {"status": "processed"}})

    assert inbound.outcome.startswith("refused:")
    assert "transaction_reference" in inbound.outcome
    assert seen == []


def test_an_event_for_a_transaction_without_refunds_is_ignored(collection, seen):
    inbound = post(paystack_event("refund.processing", collection))

    assert inbound.outcome == "ignored: the processor knows no such refund"
