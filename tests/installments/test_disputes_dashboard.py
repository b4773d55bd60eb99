"""The dashboard's dispute pages (DESIGN section 19): the list, one dispute
with its answer and acceptance, the plan page's disputes and resuming a plan
after a loss."""

import html
import re
from datetime import timedelta
from unittest import mock

import pytest
import time_machine
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from installments.disputes import files as dispute_files
from installments.disputes.models import Dispute
from installments.plans.models import Installment, PaymentPlan
from payments.gateway.errors import ProcessorError
from payments.ledger.fees import platform_fee
from payments.ledger.selectors import wallet_available_balance

from .conftest import check_ledger, collect, installments_of, make_active_plan
from .disputes import deposit_reference, dispute_decide, dispute_open

pytestmark = pytest.mark.django_db(transaction=True)

DISPUTES = "/dashboard/disputes/"
PDF = b"%PDF-1.4\n% proof of delivery\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 32


def answer_data(**files) -> dict:
    return {
        "customer_email": "ada@mail.example.com",
        "customer_name": "Ada Obi",
        "customer_phone": "08030000000",
        "service_details": "A phone, delivered\nand signed for.",
        "delivery_address": "1 Marina, Lagos",
        "delivery_date": "2026-01-05",
        "message": "",
        **files,
    }


def shown_dispute_ids(page: str) -> list[str]:
    return re.findall(r'data-dispute-id="(dp_[^"]+)"', page)


def _dispute(plan, *, status, due_in_hours, number):
    return Dispute.objects.create(
        processor_dispute_id=f"sbdsp_test_{number}",
        plan=plan,
        merchant=plan.merchant,
        collection_reference=f"ref_{number}",
        amount=1000,
        amount_held=1000,
        status=status,
        due_at=timezone.now() + timedelta(hours=due_in_hours),
    )


def test_the_list_shows_open_disputes_first_by_nearest_deadline(dashboard_for):
    setup = make_active_plan()
    plan = setup.plan
    later = _dispute(plan, status="needs_response", due_in_hours=48, number=1)
    won = _dispute(plan, status="won", due_in_hours=-24, number=2)
    sooner = _dispute(plan, status="under_review", due_in_hours=24, number=3)
    client = dashboard_for(setup.owner.merchant)

    response = client.get(DISPUTES)
    assert response.status_code == 200
    page = response.content.decode()
    assert shown_dispute_ids(page) == [
        sooner.public_id,
        later.public_id,
        won.public_id,
    ]
    assert plan.order_reference in page
    assert 'href="/dashboard/disputes/"' in page  # the navigation's link

    filtered = client.get(DISPUTES, {"status": "won"}).content.decode()
    assert shown_dispute_ids(filtered) == [won.public_id]
    odd = client.get(DISPUTES, {"status": "nonsense"})
    assert odd.status_code == 200
    assert len(shown_dispute_ids(odd.content.decode())) == 3


def test_another_merchants_dispute_is_not_found(dashboard_for, merchant_active):
    setup = make_active_plan()
    dispute = dispute_open(deposit_reference(setup.plan))
    client = dashboard_for(merchant_active)

    assert client.get(f"{DISPUTES}{dispute.public_id}/").status_code == 404
    assert client.get(f"{DISPUTES}dp_missing/").status_code == 404
    answered = client.post(
        f"{DISPUTES}{dispute.public_id}/answer/", answer_data(), format="multipart"
    )
    assert answered.status_code == 404
    accepted = client.post(f"{DISPUTES}{dispute.public_id}/accept/", {"confirm": "on"})
    assert accepted.status_code == 404
    assert shown_dispute_ids(client.get(DISPUTES).content.decode()) == []
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE


def test_answering_with_a_pdf_puts_the_dispute_under_review(dashboard_for):
    setup = make_active_plan()
    dispute = dispute_open(deposit_reference(setup.plan))
    client = dashboard_for(setup.owner.merchant)
    url = f"{DISPUTES}{dispute.public_id}/"

    page = client.get(url).content.decode()
    assert 'enctype="multipart/form-data"' in page
    assert 'data-testid="accept-form"' in page

    proof = SimpleUploadedFile("delivery.pdf", PDF, content_type="application/pdf")
    photo = SimpleUploadedFile("parcel.png", PNG, content_type="image/png")
    response = client.post(f"{url}answer/", answer_data(files=[proof, photo]))
    assert response.status_code == 303
    assert response["Location"] == url

    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.UNDER_REVIEW
    assert dispute.evidence["service_details"] == "A phone, delivered\nand signed for."
    sent = [
        (f["filename"], f["attached_automatically"]) for f in dispute.evidence["files"]
    ]
    assert sent[:2] == [("delivery.pdf", False), ("parcel.png", False)]
    assert (f"agreement-{setup.plan.public_id}.pdf", True) in sent

    page = client.get(url).content.decode()
    assert 'data-testid="evidence-files"' in page
    assert "delivery.pdf" in page
    assert 'data-testid="answer-form"' not in page
    assert 'data-testid="accept-form"' not in page


@pytest.mark.parametrize(
    "files, message",
    [
        (
            [
                SimpleUploadedFile(
                    "notes.pdf", b"just text", content_type="application/pdf"
                )
            ],
            '"notes.pdf" is not a PDF, JPEG or PNG file.',
        ),
        (
            [SimpleUploadedFile(f"p{n}.pdf", PDF) for n in range(6)],
            "Attach at most 5 files; you chose 6.",
        ),
        (
            [SimpleUploadedFile("big.pdf", PDF + b"0" * (5 * 1024 * 1024))],
            '"big.pdf" is larger than 5 MiB: attach a smaller file.',
        ),
    ],
)
def test_a_bad_file_is_explained_and_changes_nothing(dashboard_for, files, message):
    setup = make_active_plan()
    dispute = dispute_open(deposit_reference(setup.plan))
    client = dashboard_for(setup.owner.merchant)

    response = client.post(
        f"{DISPUTES}{dispute.public_id}/answer/", answer_data(files=files)
    )
    assert response.status_code == 400
    assert message in html.unescape(response.content.decode())
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE
    assert dispute.evidence == {}


def test_text_with_control_characters_is_refused(dashboard_for):
    setup = make_active_plan()
    dispute = dispute_open(deposit_reference(setup.plan))
    client = dashboard_for(setup.owner.merchant)

    response = client.post(
        f"{DISPUTES}{dispute.public_id}/answer/",
        answer_data(customer_name="Ada\nObi", message="bell\x07"),
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "Line breaks and other control characters are not allowed." in page
    assert "Control characters other than line breaks are not allowed." in page
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE


def test_accepting_charges_back_and_keeps_the_ledger_balanced(dashboard_for):
    setup = make_active_plan()
    merchant = setup.owner.merchant
    dispute = dispute_open(deposit_reference(setup.plan))
    client = dashboard_for(merchant)
    url = f"{DISPUTES}{dispute.public_id}/"
    held = wallet_available_balance(merchant)

    unconfirmed = client.post(f"{url}accept/", {})
    assert unconfirmed.status_code == 400
    assert "Tick the box to confirm that you accept it." in unconfirmed.content.decode()
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE

    response = client.post(f"{url}accept/", {"confirm": "on"})
    assert response.status_code == 303
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.ACCEPTED
    assert wallet_available_balance(merchant) == held + platform_fee(dispute.amount)
    setup.plan.refresh_from_db()
    assert setup.plan.status == PaymentPlan.Status.DISPUTED
    check_ledger()

    again = client.post(f"{url}accept/", {"confirm": "on"})
    assert again.status_code == 409
    assert 'data-testid="refusal"' in again.content.decode()
    check_ledger()


def test_an_answer_after_the_deadline_says_so(dashboard_for):
    setup = make_active_plan()
    dispute = dispute_open(deposit_reference(setup.plan))
    client = dashboard_for(setup.owner.merchant)

    with time_machine.travel(dispute.due_at + timedelta(minutes=1)):
        response = client.post(f"{DISPUTES}{dispute.public_id}/answer/", answer_data())
    assert response.status_code == 409
    assert "The deadline to answer this dispute has passed" in response.content.decode()
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE


def test_a_processor_failure_is_a_message_not_a_500(dashboard_for):
    setup = make_active_plan()
    dispute = dispute_open(deposit_reference(setup.plan))
    client = dashboard_for(setup.owner.merchant)

    with mock.patch(
        "payments.gateway.processors.sandbox.SandboxProcessor.answer_dispute",
        side_effect=ProcessorError(),
    ):
        response = client.post(f"{DISPUTES}{dispute.public_id}/answer/", answer_data())
    assert response.status_code == 502
    assert "failed to answer properly" in response.content.decode()
    dispute.refresh_from_db()
    assert dispute.status == Dispute.Status.NEEDS_RESPONSE


def test_the_plan_page_shows_its_dispute_and_resumes_after_a_loss(dashboard_for):
    setup = make_active_plan()
    plan = setup.plan
    client = dashboard_for(setup.owner.merchant)
    url = f"/dashboard/plans/{plan.public_id}/"
    first = installments_of(plan)[0]
    collect(on_date=first.due_date)
    first.refresh_from_db()
    dispute = dispute_open(first.processor_reference)

    page = client.get(url).content.decode()
    assert f'data-dispute-id="{dispute.public_id}"' in page
    assert f'href="/dashboard/disputes/{dispute.public_id}/"' in page
    assert 'data-testid="plan-dispute-open"' in page
    assert 'data-testid="resume-form"' not in page

    dispute_decide(dispute, won=False)
    page = client.get(url).content.decode()
    assert 'data-testid="resume-form"' in page
    assert "badge-lost" in page

    response = client.post(f"{url}resume/")
    assert response.status_code == 303
    plan.refresh_from_db()
    assert plan.status == PaymentPlan.Status.ACTIVE
    second = installments_of(plan)[1]
    collect(on_date=second.due_date)
    second.refresh_from_db()
    assert second.status == Installment.Status.PAID

    refused = client.post(f"{url}resume/", follow=True)
    assert refused.status_code == 200
    assert "only a plan waiting after a dispute it lost" in refused.content.decode()
    check_ledger()


def test_evidence_files_knows_types_by_their_first_bytes():
    jpeg = SimpleUploadedFile("photo", b"\xff\xd8\xff\xe0" + b"0" * 10)
    found = dispute_files.evidence_files([jpeg])
    assert [(f.filename, f.content_type) for f in found] == [("photo", "image/jpeg")]
    named = SimpleUploadedFile("../../etc/x.png", PNG)
    assert dispute_files.evidence_files([named])[0].filename == "x.png"
    with pytest.raises(dispute_files.EvidenceFileError, match="is empty"):
        dispute_files.evidence_files([SimpleUploadedFile("e.pdf", b"")])


def test_anonymous_visitors_are_sent_to_sign_in(client):
    for path in (DISPUTES, f"{DISPUTES}dp_x/"):
        response = client.get(path)
        assert response.status_code == 302
        assert response["Location"].startswith("/dashboard/login/?next=")
    response = client.post(f"{DISPUTES}dp_x/accept/", {"confirm": "on"})
    assert response.status_code == 302


def test_staff_see_disputes_read_only(admin_client):
    setup = make_active_plan()
    dispute = dispute_open(deposit_reference(setup.plan))

    changelist = admin_client.get("/admin/installments/dispute/")
    assert changelist.status_code == 200
    assert dispute.public_id in changelist.content.decode()
    change = admin_client.get(f"/admin/installments/dispute/{dispute.pk}/change/")
    assert change.status_code == 200
    assert admin_client.get("/admin/installments/dispute/add/").status_code == 403
    assert (
        admin_client.post(
            f"/admin/installments/dispute/{dispute.pk}/delete/", {"post": "yes"}
        ).status_code
        == 403
    )
    assert Dispute.objects.filter(pk=dispute.pk).exists()


def test_only_the_evidence_upload_may_be_larger_than_one_mebibyte(dashboard_for):
    setup = make_active_plan()
    client = dashboard_for(setup.owner.merchant)
    big = SimpleUploadedFile("big.pdf", PDF + b"0" * (2 * 1024 * 1024))

    elsewhere = client.post(
        f"/dashboard/plans/{setup.plan.public_id}/cancel/", {"reason": "x", "f": big}
    )
    assert elsewhere.status_code == 413
    setup.plan.refresh_from_db()
    assert setup.plan.status == PaymentPlan.Status.ACTIVE
