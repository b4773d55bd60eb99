"""Refunds with PROCESSOR=paystack against `responses` fakes of Paystack's
documented replies (reference/paystack.md): `POST /refund` with our reference as
`merchant_note`, `GET /refund?transaction=` to find it again after a lost
answer, `GET /refund/:id` to re-verify; refusals, timeouts, 5xx, and the
`refund.*` events of endpoint 24."""

import json
from io import StringIO

import pytest
import requests
import responses
from django.core.management import call_command
from responses import matchers
from rest_framework.test import APIClient

from payments.gateway.errors import ProcessorError, ProcessorRefused, ProcessorTimeout
from payments.gateway.processors import get_processor, verification_refund_reference
from payments.gateway.services import (
    RefundOutcome,
    charge_record,
    processor_refund_check,
    processor_refund_request,
    verification_refund,
)
from payments.models import (
    InboundRequest,
    LedgerTransaction,
    ProcessorCharge,
    ProcessorEvent,
    ProcessorRefund,
)

from ..factories import CustomerFactory
from .conftest import signed_post
from .paystack import ok, refused

pytestmark = pytest.mark.django_db

BASE = "https://api.paystack.co"
SECRET = "sk_test_refunds"
TXN = "inst_1_a1"
REF = "rf_abc_1"

CREATED = ok(
    {
        "transaction": {
            "id": 1004723697,
            "domain": "test",
            "reference": TXN,
            "amount": 250000,
            "paid_at": "2024-08-22T09:15:02.000Z",
            "channel": "card",
            "currency": "NGN",
        },
        "integration": 412829,
        "deducted_amount": 0,
        "channel": None,
        "merchant_note": REF,
        "customer_note": "Returned phone",
        "status": "pending",
        "refunded_by": "ops@installments.ng",
        "expected_at": "2024-08-31T09:21:17.016Z",
        "currency": "NGN",
        "domain": "test",
        "amount": 100000,
        "fully_deducted": False,
        "id": 3018284,
        "createdAt": "2024-08-22T09:21:17.122Z",
        "updatedAt": "2024-08-22T09:21:17.122Z",
    },
    "Refund has been queued for processing",
)


def refund_item(status="pending", refund_id=3018284, note=REF, amount=100000):
    """One refund as `GET /refund/:id` and `GET /refund` give it (the
    transaction by its numeric id only)."""
    return {
        "integration": 412829,
        "transaction": 1004723697,
        "dispute": None,
        "settlement": None,
        "id": refund_id,
        "domain": "test",
        "currency": "NGN",
        "amount": amount,
        "status": status,
        "refunded_at": None,
        "refunded_by": "ops@installments.ng",
        "customer_note": "Returned phone",
        "merchant_note": note,
        "deducted_amount": 0,
        "fully_deducted": False,
        "createdAt": "2024-08-22T09:21:17.000Z",
    }


def listed(*items, page=1, page_count=1):
    meta = {
        "total": len(items),
        "skipped": 0,
        "perPage": 100,
        "page": page,
        "pageCount": page_count,
    }
    return ok(list(items), "Refunds retrieved", meta=meta)


@pytest.fixture
def paystack(settings):
    settings.PROCESSOR = "paystack"
    settings.PAYSTACK_BASE_URL = BASE
    settings.PAYSTACK_SECRET_KEY = SECRET
    processor = get_processor()
    real_sleep = processor._sleep
    processor._sleep = lambda seconds: None
    with responses.RequestsMock(assert_all_requests_are_fired=False) as fake:
        yield fake
    processor._sleep = real_sleep


def list_reply(fake, *replies, page=1):
    """`GET /refund?transaction=TXN` answering `replies` in turn."""
    for reply in replies:
        kwargs = {"json": reply} if isinstance(reply, dict) else {"body": reply}
        if isinstance(reply, tuple):
            kwargs = {"status": reply[0], "json": reply[1]}
        fake.add(
            "GET",
            f"{BASE}/refund",
            match=[
                matchers.query_param_matcher(
                    {"transaction": TXN, "perPage": "100", "page": str(page)}
                )
            ],
            **kwargs,
        )


def posts(fake) -> list:
    return [call for call in fake.calls if call.request.method == "POST"]


def ask(amount=100_000):
    return processor_refund_request(
        reference=REF,
        transaction_reference=TXN,
        amount=amount,
        note="Returned phone",
    )


# -- asking for a refund -------------------------------------------------------


def test_a_refund_is_asked_once_with_our_reference_as_merchant_note(paystack):
    list_reply(paystack, listed())
    paystack.add(
        "POST",
        f"{BASE}/refund",
        json=CREATED,
        match=[
            matchers.json_params_matcher(
                {
                    "transaction": TXN,
                    "amount": 100_000,
                    "currency": "NGN",
                    "merchant_note": REF,
                    "customer_note": "Returned phone",
                }
            ),
            matchers.header_matcher({"Authorization": f"Bearer {SECRET}"}),
        ],
    )

    outcome = ask()

    assert outcome == RefundOutcome(
        reference=REF,
        transaction_reference=TXN,
        refund_id="3018284",
        amount=100_000,
        status="pending",
        processor_status="pending",
    )
    assert len(posts(paystack)) == 1


def test_a_lost_answer_then_a_retry_makes_one_refund(paystack):
    list_reply(paystack, listed(), listed(refund_item("processing")))
    paystack.add("POST", f"{BASE}/refund", body=requests.exceptions.ReadTimeout())

    with pytest.raises(ProcessorTimeout):
        ask()
    outcome = ask()

    assert len(posts(paystack)) == 1  # never POSTed again
    assert (outcome.refund_id, outcome.status, outcome.processor_status) == (
        "3018284",
        "pending",
        "processing",
    )


def test_the_lookup_picks_our_refund_among_the_transactions(paystack):
    list_reply(
        paystack,
        listed(
            refund_item("processed", refund_id=1, note="rf_other_1", amount=5000),
            refund_item("failed", refund_id=2),
            refund_item("processed", refund_id=3),
        ),
    )

    outcome = ask()

    assert (outcome.refund_id, outcome.status) == ("3", "processed")
    assert posts(paystack) == []


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (400, "Transaction has been fully reversed"),
        (400, "Refund amount cannot be greater than transaction amount"),
        (404, "Transaction not found"),
    ],
)
def test_a_refused_refund_is_raised_after_looking_once_more(paystack, status, message):
    list_reply(paystack, listed(), listed())
    paystack.add("POST", f"{BASE}/refund", status=status, json=refused(message)[1])

    with pytest.raises(ProcessorRefused) as error:
        ask()

    assert error.value.processor_message == message
    assert len([c for c in paystack.calls if c.request.method == "GET"]) == 2


def test_a_refusal_after_a_lost_answer_returns_the_refund_the_list_now_shows(paystack):
    list_reply(paystack, listed(), listed(refund_item("pending")))
    paystack.add(
        "POST",
        f"{BASE}/refund",
        status=400,
        json=refused("Transaction has been fully reversed")[1],
    )

    assert ask().refund_id == "3018284"


def test_no_refund_is_asked_for_while_the_lookup_gets_no_answer(paystack):
    list_reply(
        paystack, requests.exceptions.ReadTimeout(), requests.exceptions.ReadTimeout()
    )

    with pytest.raises(ProcessorTimeout):
        ask()

    assert posts(paystack) == []


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_5xx_on_the_request_is_an_unknown_outcome_never_retried_here(
    paystack, status
):
    list_reply(paystack, listed())
    paystack.add("POST", f"{BASE}/refund", status=status, body="Bad Gateway")

    with pytest.raises(ProcessorError):
        ask()

    assert len(posts(paystack)) == 1


def test_a_5xx_on_the_lookup_is_retried_once_then_the_refund_asked(paystack):
    list_reply(paystack, (502, {"status": False, "message": "Bad Gateway"}), listed())
    paystack.add("POST", f"{BASE}/refund", json=CREATED)

    assert ask().refund_id == "3018284"


def test_a_malformed_refund_reply_is_an_error(paystack):
    list_reply(paystack, listed())
    broken = ok({**CREATED["data"], "amount": None})
    paystack.add("POST", f"{BASE}/refund", json=broken)

    with pytest.raises(ProcessorError):
        ask()


def test_the_list_is_read_page_after_page(paystack):
    list_reply(paystack, listed(refund_item(refund_id=1, note="x"), page_count=2))
    list_reply(paystack, listed(refund_item(refund_id=2), page=2), page=2)

    refunds = get_processor().list_refunds(transaction_reference=TXN)

    assert [(r.refund_id, r.merchant_note) for r in refunds] == [("1", "x"), ("2", REF)]
    assert {r.transaction_reference for r in refunds} == {TXN}


# -- the poll --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("word", "status"),
    [
        ("pending", "pending"),
        ("processing", "pending"),
        ("needs-attention", "pending"),
        ("processed", "processed"),
        ("failed", "failed"),
    ],
)
def test_the_poll_reads_the_refund_by_id_and_normalizes_its_status(
    paystack, seen, word, status
):
    paystack.add("GET", f"{BASE}/refund/3018284", json=ok(refund_item(word)))

    outcome = processor_refund_check(
        reference=REF, transaction_reference=TXN, refund_id="3018284"
    )

    assert (outcome.status, outcome.processor_status) == (status, word)
    assert seen == [outcome]


def test_the_poll_of_a_refund_paystack_does_not_know_is_none(paystack, seen):
    paystack.add(
        "GET",
        f"{BASE}/refund/3018284",
        status=404,
        json=refused("Refund not found", status=404)[1],
    )
    list_reply(paystack, listed())

    assert (
        processor_refund_check(
            reference=REF, transaction_reference=TXN, refund_id="3018284"
        )
        is None
    )
    assert seen == []


# -- endpoint 24 -------------------------------------------------------------------


def event(name: str, **data) -> dict:
    """As Paystack documents them: no refund id, except needs-attention."""
    return {
        "event": name,
        "data": {
            "status": name.removeprefix("refund."),
            "transaction_reference": TXN,
            "refund_reference": "132013318360",
            "amount": "100000",
            "currency": "NGN",
            "processor": "mpgs_zen",
            "customer": {"first_name": "Ada", "email": "ada@mail.example.com"},
            "integration": 412829,
            "domain": "test",
            **data,
        },
    }


def post(payload) -> InboundRequest:
    response = signed_post(APIClient(), "/api/v1/webhooks/paystack", payload)
    assert response.status_code == 200, response.content
    return InboundRequest.objects.order_by("-pk").first()


def test_refund_processed_is_re_read_by_id_before_the_handlers_hear_of_it(
    paystack, seen
):
    list_reply(paystack, listed(refund_item("processed")), listed(refund_item()))
    paystack.add("GET", f"{BASE}/refund/3018284", json=ok(refund_item("processed")))

    first = post(event("refund.processed"))
    again = post(event("refund.processed"))

    assert (first.outcome, again.outcome) == ("handled", "duplicate")
    assert [(o.reference, o.refund_id, o.status) for o in seen] == [
        (REF, "3018284", "processed")
    ]
    fetched = [c for c in paystack.calls if c.request.url.endswith("/refund/3018284")]
    assert len(fetched) == 2


def test_a_forged_refund_processed_whose_get_says_processing_changes_nothing(
    paystack, seen
):
    list_reply(paystack, listed(refund_item("pending")))
    paystack.add("GET", f"{BASE}/refund/3018284", json=ok(refund_item("processing")))

    inbound = post(event("refund.processed"))

    assert seen == []
    assert not ProcessorEvent.objects.exists()
    assert inbound.outcome == ""
    assert "NotSettled" in inbound.error and "processing" in inbound.error


def test_refund_needs_attention_names_the_refund_and_reaches_the_handlers(
    paystack, seen
):
    paystack.add(
        "GET", f"{BASE}/refund/3018284", json=ok(refund_item("needs-attention"))
    )

    inbound = post(
        event("refund.needs-attention", id="3018284", merchant_note="forged")
    )

    assert inbound.outcome == "handled"
    assert [(o.reference, o.status, o.processor_status) for o in seen] == [
        (REF, "pending", "needs-attention")
    ]


def test_refund_failed_reaches_the_handlers_as_failed(paystack, seen):
    list_reply(paystack, listed(refund_item("failed")))
    paystack.add("GET", f"{BASE}/refund/3018284", json=ok(refund_item("failed")))

    assert post(event("refund.failed")).outcome == "handled"
    assert [(o.reference, o.status) for o in seen] == [(REF, "failed")]


def test_an_event_while_paystack_does_not_answer_is_left_for_the_retry(paystack, seen):
    list_reply(paystack, (500, {"status": False}), (500, {"status": False}))

    inbound = post(event("refund.processed"))

    assert inbound.outcome == ""
    assert "ProcessorError" in inbound.error
    assert seen == []
    assert json.loads(bytes(inbound.body))["event"] == "refund.processed"


# -- the refund of a verification charge ---------------------------------------

CHARGE = "card-verify-1"
CHARGE_REFUND = verification_refund_reference(CHARGE)


def verification_charge():
    return charge_record(
        reference=CHARGE,
        processor="paystack",
        customer=CustomerFactory(),
        purpose=ProcessorCharge.Purpose.CARD_VERIFICATION,
        amount=5000,
        currency="NGN",
        succeeded=True,
    )


def charge_list_reply(fake, *items):
    fake.add(
        "GET",
        f"{BASE}/refund",
        match=[
            matchers.query_param_matcher(
                {"transaction": CHARGE, "perPage": "100", "page": "1"}
            )
        ],
        json=listed(*items),
    )


def test_a_verification_refund_whose_answer_was_lost_is_found_by_its_reference(
    paystack,
):
    """Paystack made the refund but its answer was lost: the retry finds it in
    `GET /refund?transaction=` by its `merchant_note` and never posts again."""
    charge = verification_charge()
    charge_list_reply(paystack)
    paystack.add(
        "POST",
        f"{BASE}/refund",
        body=requests.exceptions.ReadTimeout(),
        match=[
            matchers.json_params_matcher(
                {
                    "transaction": CHARGE,
                    "amount": 5000,
                    "currency": "NGN",
                    "merchant_note": CHARGE_REFUND,
                }
            )
        ],
    )

    assert verification_refund(charge_id=charge.pk) is None
    assert not ProcessorRefund.objects.exists()

    charge_list_reply(
        paystack, refund_item("processed", note=CHARGE_REFUND, amount=5000)
    )
    again = verification_refund(charge_id=charge.pk)

    assert len(posts(paystack)) == 1
    assert (again.refund_id, again.amount, again.status) == (
        "3018284",
        5000,
        "processed",
    )
    assert verification_refund(charge_id=charge.pk) == again
    assert len(posts(paystack)) == 1
    assert (
        LedgerTransaction.objects.filter(
            kind="verification_refund", reference=CHARGE
        ).count()
        == 1
    )
    out = StringIO()
    call_command("check_ledger", stdout=out)
    assert "clean" in out.getvalue()


def test_a_verification_refund_refused_with_none_under_its_reference_is_not_recorded(
    paystack,
):
    """A refusal is no longer read as a refund made after all, whatever its
    words: only a refund under the charge's reference is."""
    charge = verification_charge()
    charge_list_reply(paystack)
    charge_list_reply(paystack)
    paystack.add(
        "POST",
        f"{BASE}/refund",
        status=400,
        json=refused("Transaction has been fully reversed")[1],
    )

    assert verification_refund(charge_id=charge.pk) is None
    assert not ProcessorRefund.objects.exists()
    assert not LedgerTransaction.objects.filter(kind="verification_refund").exists()
