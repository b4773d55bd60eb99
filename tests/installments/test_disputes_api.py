"""The merchant API of disputes (DESIGN section 19): the list and one dispute,
the answer with evidence (multipart with files, or JSON), acceptance, and
resuming a plan after a loss."""

import hashlib
from datetime import timedelta

import pytest
import time_machine
from rest_framework.test import APIClient

from installments.agreements.models import Agreement
from installments.disputes.models import Dispute
from installments.plans.models import PaymentPlan
from payments.gateway.models import SandboxDispute
from payments.ledger.models import DISPUTES_HELD
from payments.ledger.selectors import account_balance

from ..conftest import bearer, make_merchant_with_key, merchant_jwt
from .conftest import check_ledger, collect, installments_of, make_active_plan
from .disputes import (
    DISPUTE_FIELDS,
    deposit_reference,
    dispute_decide,
    dispute_open,
)

pytestmark = pytest.mark.django_db(transaction=True)

PDF = b"%PDF-1.4\n% a small test document\n%%EOF\n"
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
TEXT = {
    "customer_email": "ada@mail.example.com",
    "customer_name": "Ada Obi",
    "customer_phone": "+2348012345678",
    "service_details": "An office chair, delivered and signed for.",
    "delivery_address": "12 Marina Road, Lagos",
    "delivery_date": "2026-11-02",
    "message": "The customer used the chair for a month.",
}


def _upload(name: str, content: bytes, content_type="application/octet-stream"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content, content_type=content_type)


def _client(setup) -> APIClient:
    client = APIClient()
    client.credentials(**setup.owner.headers)
    return client


def _evidence(setup, dispute, files=(), **text):
    data = {**TEXT, **text}
    if files:
        data["files"] = list(files)
    return _client(setup).post(
        f"/api/v1/disputes/{dispute.public_id}/evidence", data, format="multipart"
    )


@pytest.fixture
def disputed(plan_active):
    return plan_active, dispute_open(deposit_reference(plan_active.plan))


def _paid_first(setup):
    first = installments_of(setup.plan)[0]
    collect(on_date=first.due_date)
    first.refresh_from_db()
    return first


def test_list_filters_and_orders_by_the_nearest_deadline(plan_active):
    setup = plan_active
    first = _paid_first(setup)
    deposit = dispute_open(deposit_reference(setup.plan))
    installment = dispute_open(first.processor_reference)
    Dispute.objects.filter(pk=deposit.pk).update(
        due_at=installment.due_at + timedelta(days=1)
    )
    other = make_active_plan(email="bola@mail.example.com")
    dispute_open(deposit_reference(other.plan))
    client = _client(setup)

    answer = client.get("/api/v1/disputes")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["total"] == 2
    assert [d["id"] for d in body["data"]] == [installment.public_id, deposit.public_id]
    item = body["data"][0]
    assert item["installment_id"] == first.public_id
    assert item["collection_reference"] == first.processor_reference
    assert item["status"] == "needs_response" and item["evidence"] is None
    assert item["due_at"].endswith("Z")

    by_plan = client.get(f"/api/v1/disputes?payment_plan_id={other.plan.public_id}")
    assert by_plan.json()["total"] == 0
    mine = client.get(f"/api/v1/disputes?payment_plan_id={setup.plan.public_id}")
    assert mine.json()["total"] == 2
    assert client.get("/api/v1/disputes?status=won").json()["total"] == 0
    assert client.get("/api/v1/disputes?status=needs_response").json()["total"] == 2
    assert client.get("/api/v1/disputes?status=open").status_code == 400
    assert client.get("/api/v1/disputes?payment_plan_id=x%00").status_code == 400
    paged = client.get("/api/v1/disputes?limit=1&offset=1").json()
    assert [d["id"] for d in paged["data"]] == [deposit.public_id]


def test_read_one_and_another_merchants_is_a_404(disputed):
    setup, dispute = disputed
    answer = _client(setup).get(f"/api/v1/disputes/{dispute.public_id}")
    assert answer.status_code == 200
    data = answer.json()["data"]
    assert set(data) == DISPUTE_FIELDS
    assert (data["payment_plan_id"], data["installment_id"]) == (
        setup.plan.public_id,
        None,
    )
    assert data["amount"] == data["amount_held"] == setup.plan.deposit_amount

    stranger = make_merchant_with_key()
    for credential in (stranger.api_key, merchant_jwt(stranger.merchant)):
        other = APIClient()
        other.credentials(**bearer(credential))
        url = f"/api/v1/disputes/{dispute.public_id}"
        assert other.get(url).status_code == 404
        assert other.post(f"{url}/accept", {}, format="json").status_code == 404
        assert other.post(f"{url}/evidence", TEXT, format="json").status_code == 404
        assert other.get("/api/v1/disputes").json()["total"] == 0
    # The merchant's own JWT reads it too.
    own = APIClient()
    own.credentials(**bearer(merchant_jwt(setup.owner.merchant)))
    assert own.get(f"/api/v1/disputes/{dispute.public_id}").status_code == 200


def test_evidence_with_files_goes_to_the_processor_with_the_documents(disputed):
    setup, dispute = disputed
    files = (
        ("receipt.pdf", PDF),
        ("delivery.jpg", JPEG),
        ("signature.png", PNG),
    )
    answer = _evidence(setup, dispute, [_upload(name, data) for name, data in files])
    assert answer.status_code == 200, answer.content
    data = answer.json()["data"]
    assert data["status"] == "under_review"
    assert data["responded_at"] is not None
    assert data["evidence"]["service_details"] == TEXT["service_details"]
    assert data["evidence"]["delivery_date"] == "2026-11-02"

    agreement = Agreement.objects.get(plan=setup.plan)
    sent = SandboxDispute.objects.get(dispute_id=dispute.processor_dispute_id)
    assert sent.evidence["customer_email"] == TEXT["customer_email"]
    hashes = [item["sha256"] for item in sent.evidence["files"]]
    names = [item["filename"] for item in sent.evidence["files"]]
    assert hashes[:3] == [hashlib.sha256(content).hexdigest() for _, content in files]
    assert hashlib.sha256(bytes(agreement.document)).hexdigest() == hashes[3]
    assert names[3:] == [
        f"agreement-{setup.plan.public_id}.pdf",
        f"payment-history-{setup.plan.public_id}.pdf",
    ]
    types = [item["content_type"] for item in sent.evidence["files"]]
    assert types == [
        "application/pdf",
        "image/jpeg",
        "image/png",
        *["application/pdf"] * 2,
    ]
    recorded = data["evidence"]["files"]
    assert [f["sha256"] for f in recorded] == hashes
    assert [f["attached_automatically"] for f in recorded] == [False] * 3 + [True] * 2

    again = _evidence(setup, dispute)
    assert again.status_code == 409
    assert again.json()["error"]["code"] == "dispute_not_open"


def test_the_payment_history_lists_the_plans_collections(disputed):
    from installments.disputes.history import history_pdf

    setup, dispute = disputed
    content = history_pdf(setup.plan, disputed_reference=dispute.collection_reference)
    assert content.startswith(b"%PDF-")


def test_evidence_as_json_without_files(disputed):
    setup, dispute = disputed
    answer = _client(setup).post(
        f"/api/v1/disputes/{dispute.public_id}/evidence",
        {"service_details": "Delivered."},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    files = SandboxDispute.objects.get(
        dispute_id=dispute.processor_dispute_id
    ).evidence["files"]
    # Only the two documents attached for the merchant.
    assert len(files) == 2


def _refused(setup, dispute, answer, status, words):
    assert answer.status_code == status, answer.content
    body = answer.json()
    assert words in (body.get("detail") or body["error"]["message"])
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE
    assert dispute.evidence == {}
    sent = SandboxDispute.objects.get(dispute_id=dispute.processor_dispute_id)
    assert "files" not in sent.evidence


def test_six_files_are_refused(disputed):
    setup, dispute = disputed
    six = [_upload(f"page-{n}.pdf", PDF) for n in range(6)]
    answer = _evidence(setup, dispute, six)
    _refused(setup, dispute, answer, 422, "at most 5 files")
    assert answer.json()["error"]["code"] == "evidence_file_invalid"


def test_a_file_over_5_mib_is_refused_naming_it(disputed):
    setup, dispute = disputed
    big = PDF + b"0" * (5 * 1024 * 1024)
    answer = _evidence(
        setup, dispute, [_upload("ok.pdf", PDF), _upload("scan.pdf", big)]
    )
    _refused(setup, dispute, answer, 422, '"scan.pdf"')


def test_a_file_of_another_type_is_refused_by_its_bytes(disputed):
    setup, dispute = disputed
    fake = _upload("invoice.pdf", b"MZ\x90\x00 not a pdf", "application/pdf")
    answer = _evidence(setup, dispute, [fake])
    _refused(setup, dispute, answer, 422, '"invoice.pdf" is not a PDF, JPEG or PNG')


@pytest.mark.parametrize(
    "field", ["customer_name", "service_details", "delivery_address", "message"]
)
def test_control_characters_are_refused(disputed, field):
    setup, dispute = disputed
    answer = _evidence(setup, dispute, [_upload("a.pdf", PDF)], **{field: "a\x07b"})
    _refused(setup, dispute, answer, 400, field)


def test_too_long_and_missing_fields_are_refused(disputed):
    setup, dispute = disputed
    answer = _evidence(setup, dispute, service_details="x" * 2001)
    _refused(setup, dispute, answer, 400, "service_details")
    client = _client(setup)
    url = f"/api/v1/disputes/{dispute.public_id}/evidence"
    answer = client.post(url, {"message": "Hi"}, format="json")
    _refused(setup, dispute, answer, 400, "service_details")
    answer = client.post(url, {"service_details": "x", "files": ["a"]}, format="json")
    _refused(setup, dispute, answer, 400, "files")


def test_an_upload_may_be_larger_than_a_mebibyte_but_not_without_limit(disputed):
    setup, dispute = disputed
    big = PDF + b"0" * (3 * 1024 * 1024)
    answer = _evidence(setup, dispute, [_upload("big.pdf", big)])
    assert answer.status_code == 200, answer.content
    # Other bodies keep the 1 MiB limit, JSON to the same path included.
    client = _client(setup)
    answer = client.post(
        f"/api/v1/disputes/{dispute.public_id}/accept",
        {"message": "x" * (2 * 1024 * 1024)},
        format="json",
    )
    assert answer.status_code == 413


def test_a_body_over_the_upload_limit_is_413(disputed):
    setup, dispute = disputed
    answer = _client(setup).post(
        f"/api/v1/disputes/{dispute.public_id}/evidence",
        data=b"x",
        content_type="multipart/form-data; boundary=zz",
        CONTENT_LENGTH=str(27 * 1024 * 1024),
    )
    assert answer.status_code == 413
    assert "26 MiB" in answer.json()["detail"]


def test_past_the_deadline_is_a_409(disputed):
    setup, dispute = disputed
    with time_machine.travel(dispute.due_at + timedelta(minutes=1)):
        answer = _evidence(setup, dispute)
        assert answer.status_code == 409
        assert answer.json()["error"]["code"] == "dispute_deadline_passed"
        accept = _client(setup).post(
            f"/api/v1/disputes/{dispute.public_id}/accept", {}, format="json"
        )
        assert accept.json()["error"]["code"] == "dispute_deadline_passed"


def test_accept_charges_the_money_back_and_resume_continues_the_plan(plan_active):
    setup = plan_active
    first = _paid_first(setup)
    dispute = dispute_open(first.processor_reference)
    client = _client(setup)
    plan_url = f"/api/v1/payment-plans/{setup.plan.public_id}/resume"
    early = client.post(plan_url)
    assert early.status_code == 409
    assert early.json()["error"]["code"] == "plan_not_resumable"

    answer = client.post(
        f"/api/v1/disputes/{dispute.public_id}/accept",
        {"message": "We refunded the customer."},
        format="json",
    )
    assert answer.status_code == 200, answer.content
    data = answer.json()["data"]
    assert (data["status"], data["resolved_at"] is not None) == ("accepted", True)
    assert account_balance(DISPUTES_HELD) == 0
    sent = SandboxDispute.objects.get(dispute_id=dispute.processor_dispute_id)
    assert sent.evidence["accepted_message"] == "We refunded the customer."
    setup.plan.refresh_from_db()
    assert setup.plan.status == PaymentPlan.Status.DISPUTED
    assert setup.plan.amount_charged_back == first.amount
    check_ledger()

    again = client.post(
        f"/api/v1/disputes/{dispute.public_id}/accept", {}, format="json"
    )
    assert again.json()["error"]["code"] == "dispute_not_open"

    resumed = client.post(plan_url)
    assert resumed.status_code == 200, resumed.content
    plan = resumed.json()["data"]
    assert (plan["id"], plan["status"]) == (setup.plan.public_id, "active")
    assert client.post(plan_url).json()["error"]["code"] == "plan_not_resumable"
    check_ledger()


def test_a_lost_dispute_can_be_resumed_with_a_merchant_jwt_only_by_key(disputed):
    setup, dispute = disputed
    dispute_decide(dispute, won=False)
    jwt = APIClient()
    jwt.credentials(**bearer(merchant_jwt(setup.owner.merchant)))
    url = f"/api/v1/payment-plans/{setup.plan.public_id}/resume"
    assert jwt.post(url).status_code == 403
    stranger = APIClient()
    stranger.credentials(**make_merchant_with_key().headers)
    assert stranger.post(url).status_code == 404
    assert _client(setup).post(url).status_code == 200


def test_text_fields_of_an_upload_keep_the_one_mebibyte_limit(disputed):
    setup, dispute = disputed
    answer = _evidence(
        setup, dispute, [_upload("a.pdf", PDF)], message="x" * (2 * 1024 * 1024)
    )
    assert answer.status_code == 413, answer.content
    assert "1 MiB" in answer.json()["detail"]
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE
