"""Disputes with PROCESSOR=paystack against `responses` fakes of Paystack's
documented replies (reference/paystack.md, "Disputes"): `GET /dispute/:id`,
the answer (each file to its signed upload URL, the evidence, the resolve
call) and the acceptance; and a `charge.dispute.create` of endpoint 24."""

import json
from datetime import UTC, datetime

import pytest
import requests
import responses
from rest_framework.test import APIClient

from installments.disputes.models import Dispute
from payments.gateway.errors import ProcessorError, ProcessorRefused
from payments.gateway.processors import get_processor
from payments.gateway.processors.dispute_types import (
    DisputeEvidence,
    DisputeState,
    EvidenceFile,
    ProcessorDispute,
)
from payments.models import InboundRequest

from ..installments.conftest import check_ledger, make_active_plan
from ..installments.disputes import deposit_reference
from .conftest import signed_post
from .paystack import BASE, ok, refused

DISPUTE_ID = 2867
TXN = "inst_1_a1"
STORAGE = "https://files.paystack.co/disputes"


def dispute_data(
    *,
    reference=TXN,
    refund_amount=None,
    status="awaiting-merchant-feedback",
    resolution=None,
    **extra,
):
    """One dispute as `GET /dispute/:id` gives it (its transaction expanded)."""
    return {
        "id": DISPUTE_ID,
        "refund_amount": refund_amount,
        "currency": "NGN",
        "status": status,
        "resolution": resolution,
        "domain": "test",
        "transaction": {
            "id": 5991760,
            "domain": "test",
            "status": "success",
            "reference": reference,
            "amount": 250000,
            "currency": "NGN",
            "channel": "card",
        },
        "category": "chargeback",
        "customer": {"id": 10207374, "email": "ada@mail.example.com"},
        "bin": "408408",
        "last4": "4081",
        "due_at": "2024-09-03T09:15:02.000Z",
        "resolvedAt": None,
        "evidence": None,
        "note": None,
        "createdAt": "2024-08-27T09:15:02.000Z",
        **extra,
    }


# The resolve call names the transaction by its numeric id only.
def resolved(resolution, refund_amount):
    return ok(
        {
            **dispute_data(
                status="resolved", resolution=resolution, refund_amount=refund_amount
            ),
            "transaction": 5991760,
        },
        "Dispute successfully resolved",
    )


EVIDENCE = DisputeEvidence(
    customer_email="ada@mail.example.com",
    customer_name="Ada Obi",
    customer_phone="+2348012345678",
    service_details="A phone, delivered and signed for.",
    delivery_address="3 Marina, Lagos",
    delivery_date="2024-08-20",
    message="The customer received the phone.",
    files=(
        EvidenceFile("agreement.pdf", "application/pdf", b"%PDF-1.4 agreement"),
        EvidenceFile("receipt.png", "image/png", b"\x89PNG receipt"),
    ),
)


@pytest.fixture
def processor(paystack):
    return get_processor()


def dispute_path(suffix=""):
    return f"{BASE}/dispute/{DISPUTE_ID}{suffix}"


def upload_urls(fake):
    for index, item in enumerate(EVIDENCE.files):
        fake.add(
            "GET",
            dispute_path("/upload_url"),
            match=[
                responses.matchers.query_param_matcher(
                    {"upload_filename": item.filename}
                )
            ],
            json=ok(
                {
                    "signedUrl": f"{STORAGE}/{index}?X-Amz-Signature=abc",
                    "fileName": f"qesp8a4df{index}",
                },
                "Upload url generated",
            ),
        )


def calls_to(fake, method, url_start):
    return [
        call
        for call in fake.calls
        if call.request.method == method and call.request.url.startswith(url_start)
    ]


def body_of(call) -> dict:
    return json.loads(call.request.body)


# -- reading one ---------------------------------------------------------------


@pytest.mark.django_db
def test_a_dispute_is_read_with_every_field(paystack, processor):
    paystack.add(
        "GET",
        dispute_path(),
        json=ok(
            dispute_data(
                refund_amount=100000,
                status="resolved",
                resolution="declined",
                message="  I did not receive the item  ",
            ),
            "Dispute retrieved",
        ),
    )

    found = processor.fetch_dispute(dispute_id=str(DISPUTE_ID))

    assert found == ProcessorDispute(
        dispute_id="2867",
        transaction_reference=TXN,
        amount=100000,
        status=DisputeState.RESOLVED,
        currency="NGN",
        resolution="declined",
        category="chargeback",
        reason="I did not receive the item",
        due_at=datetime(2024, 9, 3, 9, 15, 2, tzinfo=UTC),
    )
    assert found.due_at.utcoffset() is not None
    assert found.won is True


@pytest.mark.django_db
def test_without_a_refund_amount_the_transactions_amount_is_disputed(
    paystack, processor
):
    paystack.add(
        "GET",
        dispute_path(),
        json=ok(dispute_data(refund_amount=0, note="Not recognised")),
    )

    found = processor.fetch_dispute(dispute_id=str(DISPUTE_ID))

    assert (found.amount, found.reason, found.resolution, found.won) == (
        250000,
        "Not recognised",
        "",
        None,
    )


@pytest.mark.django_db
def test_a_dispute_paystack_does_not_know_is_none(paystack, processor):
    paystack.add(
        "GET",
        dispute_path(),
        status=404,
        json={"status": False, "message": "Dispute not found"},
    )

    assert processor.fetch_dispute(dispute_id=str(DISPUTE_ID)) is None


@pytest.mark.django_db
def test_a_dispute_without_its_transaction_is_a_malformed_reply(paystack, processor):
    data = dispute_data()
    del data["transaction"]
    paystack.add("GET", dispute_path(), json=ok(data))

    with pytest.raises(ProcessorError, match="malformed"):
        processor.fetch_dispute(dispute_id=str(DISPUTE_ID))


# -- answering one -------------------------------------------------------------


@pytest.mark.django_db
def test_an_answer_uploads_each_file_then_sends_the_evidence_then_resolves(
    paystack, processor
):
    upload_urls(paystack)
    for index in range(len(EVIDENCE.files)):
        paystack.add("PUT", f"{STORAGE}/{index}", status=200)
    paystack.add(
        "POST",
        dispute_path("/evidence"),
        json=ok({"id": 21, "dispute": DISPUTE_ID}, "Evidence created"),
    )
    paystack.add("PUT", dispute_path("/resolve"), json=resolved("declined", 250000))
    paystack.add(
        "GET",
        dispute_path(),
        json=ok(dispute_data(status="resolved", resolution="declined")),
    )

    found = processor.answer_dispute(
        dispute_id=str(DISPUTE_ID), evidence=EVIDENCE, refund_amount=250000
    )

    uploads = calls_to(paystack, "PUT", STORAGE)
    assert [call.request.url for call in uploads] == [
        f"{STORAGE}/0?X-Amz-Signature=abc",
        f"{STORAGE}/1?X-Amz-Signature=abc",
    ]
    assert [
        (call.request.body, call.request.headers["Content-Type"]) for call in uploads
    ] == [(item.content, item.content_type) for item in EVIDENCE.files]
    assert all("Authorization" not in call.request.headers for call in uploads)
    (evidence,) = calls_to(paystack, "POST", dispute_path("/evidence"))
    assert body_of(evidence) == {
        "customer_email": "ada@mail.example.com",
        "customer_name": "Ada Obi",
        "customer_phone": "+2348012345678",
        "service_details": "A phone, delivered and signed for.",
        "delivery_address": "3 Marina, Lagos",
        "delivery_date": "2024-08-20",
    }
    (resolve,) = calls_to(paystack, "PUT", dispute_path("/resolve"))
    assert body_of(resolve) == {
        "resolution": "declined",
        "message": "The customer received the phone.",
        "refund_amount": 250000,
        "uploaded_filename": "qesp8a4df0",
        "evidence": 21,
    }
    methods = [
        (call.request.method, call.request.url.split("?")[0]) for call in paystack.calls
    ]
    assert methods.index(("POST", dispute_path("/evidence"))) > methods.index(
        ("PUT", f"{STORAGE}/1")
    )
    assert methods.index(("PUT", dispute_path("/resolve"))) > methods.index(
        ("POST", dispute_path("/evidence"))
    )
    # The resolve answer names the transaction by id: the dispute is read again.
    assert (found.status, found.resolution, found.transaction_reference) == (
        "resolved",
        "declined",
        TXN,
    )


@pytest.mark.django_db
def test_an_answer_without_words_or_delivery_sends_the_default_message(
    paystack, processor
):
    bare = DisputeEvidence(
        customer_email="ada@mail.example.com",
        customer_name="Ada Obi",
        customer_phone="+2348012345678",
        service_details="A phone.",
        files=EVIDENCE.files[:1],
    )
    upload_urls(paystack)
    paystack.add("PUT", f"{STORAGE}/0", status=200)
    paystack.add("POST", dispute_path("/evidence"), json=ok({"id": 22}))
    paystack.add(
        "PUT",
        dispute_path("/resolve"),
        json=ok(dispute_data(status="awaiting-bank-feedback")),
    )

    found = processor.answer_dispute(
        dispute_id=str(DISPUTE_ID), evidence=bare, refund_amount=250000
    )

    (evidence,) = calls_to(paystack, "POST", dispute_path("/evidence"))
    assert set(body_of(evidence)) == {
        "customer_email",
        "customer_name",
        "customer_phone",
        "service_details",
    }
    (resolve,) = calls_to(paystack, "PUT", dispute_path("/resolve"))
    assert body_of(resolve)["message"]
    assert body_of(resolve)["uploaded_filename"] == "qesp8a4df0"
    # An answer with the transaction expanded is taken as it is.
    assert found.status == DisputeState.AWAITING_BANK
    assert [call.request.url.split("?")[0] for call in paystack.calls][-1] == (
        dispute_path("/resolve")
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "failure",
    [{"status": 403}, {"body": requests.exceptions.ConnectionError("reset")}],
    ids=["refused", "unreachable"],
)
def test_a_failed_upload_raises_and_sends_no_evidence(paystack, processor, failure):
    upload_urls(paystack)
    paystack.add("PUT", f"{STORAGE}/0", **failure)

    with pytest.raises(ProcessorError):
        processor.answer_dispute(
            dispute_id=str(DISPUTE_ID), evidence=EVIDENCE, refund_amount=250000
        )

    assert not calls_to(paystack, "PUT", f"{STORAGE}/1")
    assert not calls_to(paystack, "POST", dispute_path("/evidence"))
    assert not calls_to(paystack, "PUT", dispute_path("/resolve"))


@pytest.mark.django_db
def test_an_upload_url_that_is_not_https_is_refused(paystack, processor):
    paystack.add(
        "GET",
        dispute_path("/upload_url"),
        json=ok({"signedUrl": "http://169.254.169.254/x", "fileName": "x"}),
    )

    with pytest.raises(ProcessorError, match="malformed"):
        processor.answer_dispute(
            dispute_id=str(DISPUTE_ID), evidence=EVIDENCE, refund_amount=250000
        )

    assert [call.request.method for call in paystack.calls] == ["GET"]


# -- accepting one -------------------------------------------------------------


@pytest.mark.django_db
def test_accepting_resolves_as_merchant_accepted(paystack, processor):
    paystack.add(
        "PUT", dispute_path("/resolve"), json=resolved("merchant-accepted", 100000)
    )
    paystack.add(
        "GET",
        dispute_path(),
        json=ok(
            dispute_data(
                status="resolved", resolution="merchant-accepted", refund_amount=100000
            )
        ),
    )

    found = processor.accept_dispute(
        dispute_id=str(DISPUTE_ID), refund_amount=100000, message="Refunding."
    )

    (resolve,) = calls_to(paystack, "PUT", dispute_path("/resolve"))
    assert body_of(resolve) == {
        "resolution": "merchant-accepted",
        "message": "Refunding.",
        "refund_amount": 100000,
    }
    assert (found.amount, found.won) == (100000, False)


@pytest.mark.django_db
def test_a_refused_resolve_raises_processor_refused(paystack, processor):
    status, body = refused("Dispute deadline has passed")
    paystack.add("PUT", dispute_path("/resolve"), status=status, json=body)

    with pytest.raises(ProcessorRefused) as raised:
        processor.accept_dispute(
            dispute_id=str(DISPUTE_ID), refund_amount=100000, message="Refunding."
        )

    assert raised.value.processor_status == 400
    assert raised.value.processor_message == "Dispute deadline has passed"
    assert len(calls_to(paystack, "PUT", dispute_path("/resolve"))) == 1


# -- endpoint 24 -------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_dispute_created_twice_at_endpoint_24_makes_one_dispute(settings):
    setup = make_active_plan()  # under the sandbox
    reference = deposit_reference(setup.plan)
    settings.PROCESSOR = "paystack"
    settings.PAYSTACK_BASE_URL = BASE
    settings.PAYSTACK_SECRET_KEY = "sk_test_disputes"
    payload = {
        "event": "charge.dispute.create",
        "data": dispute_data(reference=reference, refund_amount=None),
    }
    with responses.RequestsMock(assert_all_requests_are_fired=False) as fake:
        fake.add(
            "GET",
            dispute_path(),
            json=ok(dispute_data(reference=reference, message="Not recognised")),
        )
        outcomes = []
        for _ in range(2):
            response = signed_post(APIClient(), "/api/v1/webhooks/paystack", payload)
            assert response.status_code == 200, response.content
            outcomes.append(InboundRequest.objects.order_by("-pk").first().outcome)

    assert outcomes == ["handled", "duplicate"]
    dispute = Dispute.objects.get()
    assert dispute.processor_dispute_id == str(DISPUTE_ID)
    assert dispute.collection_reference == reference
    assert dispute.reason == "Not recognised"
    assert dispute.due_at == datetime(2024, 9, 3, 9, 15, 2, tzinfo=UTC)
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE
    check_ledger()
