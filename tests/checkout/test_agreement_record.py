"""The agreement record (DESIGN section 18): made in the transaction that
activates the plan, its key facts equal to the plan's figures and to the box
the checkout showed, immutable, e-mailed with its PDF, and served as stored on
every route."""

import hashlib
import re
import zlib
from datetime import UTC, date, datetime, time

import hypothesis.extra.django
import pytest
import time_machine
from django.core import mail
from django.db import connection, transaction
from django.db.utils import DatabaseError
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from checkout import services
from checkout.models import CheckoutSession
from config.api.formats import iso_utc
from installments.agreements import services as agreement_services
from installments.agreements.document import agreement_pdf
from installments.agreements.facts import key_facts
from installments.agreements.models import Agreement, AgreementImmutable
from installments.deposits.consent import Consent
from installments.notifications.models import Message
from installments.notifications.services import messages_send_due
from installments.plans import rules
from installments.plans.models import PaymentPlan
from payments.methods.models import PaymentMethod
from payments.methods.terms import MANDATE_TERMS, MANDATE_TERMS_VERSION
from payments.models import Customer

from ..conftest import bearer, make_merchant_with_key
from ..dashboards import sign_in
from ..installments.account import signed_in
from ..payments.conftest import add_bank
from ..payments.conftest import sign_in as sign_in_api
from .conftest import CARD_POOR, add_card, complete, open_session, register

LAGOS_NOON = time(11)  # UTC, 12:00 in Lagos
IP = "203.0.113.7"
AGENT = "Mozilla/5.0 (Agreement test)"


@pytest.fixture
def consent(shopper):
    """The customer's requests come from this address and browser: the
    completion records them as the consent (checkout/consent.py)."""
    shopper.client.defaults.update(REMOTE_ADDR=IP, HTTP_USER_AGENT=AGENT)


def pdf_text(document: bytes) -> str:
    """The text a PDF shows (its content streams inflated)."""
    shown = []
    for stream in re.findall(rb"stream\r?\n(.*?)\r?\nendstream", document, re.S):
        try:
            content = zlib.decompress(stream)
        except zlib.error:
            continue
        shown += re.findall(rb"\((.*?)(?<!\\)\) ?Tj", content)
    return "\n".join(part.decode("latin-1") for part in shown)


def bought(merchant_with_key, shopper, card, **overrides) -> PaymentPlan:
    token = open_session(merchant_with_key, amount=250_000)
    response = complete(shopper, token, card, **overrides)
    assert response.status_code == 201, response.content
    return PaymentPlan.objects.get(public_id=response.json()["data"]["id"])


def test_the_activating_transaction_records_the_agreement_with_the_consent(
    merchant_with_key, shopper, card, consent
):
    plan = bought(merchant_with_key, shopper, card)

    agreement = Agreement.objects.get(plan=plan)
    assert agreement.public_id.startswith("agr_")
    assert agreement.customer_id == plan.customer_id
    assert agreement.merchant_id == plan.merchant_id
    assert (agreement.ip, agreement.user_agent) == (IP, AGENT)
    attempt = plan.deposit_attempts.get(status="succeeded")
    assert agreement.accepted_at == attempt.terms_accepted_at.replace(microsecond=0)
    assert agreement.version == agreement.key_facts["version"]
    assert agreement.document_sha256 == hashlib.sha256(agreement.document).hexdigest()
    assert bytes(agreement.document).startswith(b"%PDF-")
    assert "mandate_terms" not in agreement.key_facts  # a card


def test_a_declined_deposit_records_no_agreement(merchant_with_key, shopper):
    declined = add_card(shopper, CARD_POOR)
    token = open_session(merchant_with_key, amount=250_000)
    assert complete(shopper, token, declined).status_code == 402
    assert not Agreement.objects.exists()


def test_the_pdf_is_a_function_of_the_facts_and_names_the_customer_by_id_only(
    merchant_with_key, shopper, card, consent
):
    plan = bought(merchant_with_key, shopper, card)
    agreement = Agreement.objects.get(plan=plan)
    again = agreement_pdf(
        facts=agreement.key_facts,
        plan_id=plan.public_id,
        order_reference=plan.order_reference,
        customer_id=plan.customer.public_id,
        accepted_at=agreement.accepted_at,
    )
    assert again == bytes(agreement.document)
    customer = plan.customer
    # The PDF's text holds none of the person.
    text = pdf_text(bytes(agreement.document))
    assert customer.public_id in text
    assert plan.public_id in text
    for personal in (customer.first_name, customer.last_name, customer.email, IP):
        assert personal not in text
    assert "NGN 750.00" in text, text  # the deposit (75,000 kobo), latin-1


def test_every_route_serves_the_stored_bytes(merchant_with_key, shopper, card, consent):
    plan = bought(merchant_with_key, shopper, card)
    agreement = Agreement.objects.get(plan=plan)
    served = []

    # The API: the merchant's key and the customer's JWT.
    for headers in (merchant_with_key.headers, bearer(shopper.access)):
        api = APIClient()
        api.credentials(**headers)
        answer = api.get(f"/api/v1/payment-plans/{plan.public_id}/agreement")
        assert answer.status_code == 200, answer.content
        data = answer.json()["data"]
        assert data == {
            "version": agreement.version,
            "livemode": True,
            "accepted_at": iso_utc(agreement.accepted_at),
            "document_sha256": agreement.document_sha256,
            "key_facts": agreement.key_facts,
            "document_url": data["document_url"],
        }
        assert data["document_url"].endswith(
            f"/api/v1/payment-plans/{plan.public_id}/agreement.pdf"
        )
        pdf = api.get(f"/api/v1/payment-plans/{plan.public_id}/agreement.pdf")
        served.append(pdf)

    # The customer's account.
    account = signed_in("ada@mail.example.com")
    page = account.get(f"/account/plans/{plan.public_id}/")
    assert f"/account/plans/{plan.public_id}/agreement.pdf" in page.content.decode()
    served.append(account.get(f"/account/plans/{plan.public_id}/agreement.pdf"))

    # The dashboard.
    dashboard = sign_in(Client(), merchant_with_key.merchant)
    page = dashboard.get(f"/dashboard/plans/{plan.public_id}/")
    assert f"/dashboard/plans/{plan.public_id}/agreement.pdf" in page.content.decode()
    served.append(dashboard.get(f"/dashboard/plans/{plan.public_id}/agreement.pdf"))

    for response in served:
        assert response.status_code == 200
        assert response["Content-Type"] == "application/pdf"
        assert response["Content-Disposition"] == (
            f'attachment; filename="agreement-{plan.public_id}.pdf"'
        )
        assert "no-store" in response["Cache-Control"]
        assert hashlib.sha256(response.content).hexdigest() == (
            agreement.document_sha256
        )


def test_a_plan_is_read_only_by_its_merchant_and_customer(
    merchant_with_key, other_merchant_with_key, shopper, card, consent
):
    plan = bought(merchant_with_key, shopper, card)
    stranger = register("bola@mail.example.com")
    others = APIClient()
    others.credentials(**other_merchant_with_key.headers)
    for api in (others, stranger.client):
        for tail in ("agreement", "agreement.pdf"):
            answer = api.get(f"/api/v1/payment-plans/{plan.public_id}/{tail}")
            assert answer.status_code == 404
    account = signed_in("bola@mail.example.com")
    assert account.get(
        f"/account/plans/{plan.public_id}/agreement.pdf"
    ).status_code == (404)


def test_a_plan_without_an_agreement_is_404_agreement_not_found(
    merchant_with_key, shopper, card
):
    plan = bought(merchant_with_key, shopper, card)
    with connection.cursor() as cursor:  # a plan made before agreements
        cursor.execute(
            "DELETE FROM installments_message WHERE agreement_id IS NOT NULL"
        )
        cursor.execute("DELETE FROM installments_agreement")
    api = APIClient()
    api.credentials(**merchant_with_key.headers)
    for tail in ("agreement", "agreement.pdf"):
        answer = api.get(f"/api/v1/payment-plans/{plan.public_id}/{tail}")
        assert answer.status_code == 404
        error = answer.json()["error"]
        assert error["code"] == "agreement_not_found"
        assert "before agreements were recorded" in error["message"]


def test_the_model_refuses_to_change_or_delete_an_agreement(
    merchant_with_key, shopper, card, consent
):
    plan = bought(merchant_with_key, shopper, card)
    agreement = Agreement.objects.get(plan=plan)
    agreement.key_facts = {"deposit": 1}
    with pytest.raises(AgreementImmutable):
        agreement.save()
    with pytest.raises(AgreementImmutable):
        agreement.delete()
    assert Agreement.objects.get(plan=plan).key_facts["deposit"] == 75_000


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the trigger is PostgreSQL's"
)
@pytest.mark.parametrize(
    "change",
    [
        "key_facts = '{}'::jsonb",
        "document_sha256 = 'f00d'",
        "document = 'x'::bytea",
        "ip = '198.51.100.1'",
        "user_agent = 'Other'",
        "accepted_at = accepted_at + interval '1 day'",
    ],
)
def test_the_database_refuses_an_update_of_an_agreement(
    merchant_with_key, shopper, card, consent, change
):
    plan = bought(merchant_with_key, shopper, card)
    with (
        pytest.raises(DatabaseError),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"UPDATE installments_agreement SET {change}")
    assert (
        Agreement.objects.get(plan=plan).document_sha256
        == hashlib.sha256(Agreement.objects.get(plan=plan).document).hexdigest()
    )


def test_the_erasure_blanks_the_address_and_browser_and_nothing_else(
    merchant_with_key, shopper, card, consent
):
    plan = bought(merchant_with_key, shopper, card)
    before = Agreement.objects.get(plan=plan)

    assert agreement_services.agreements_anonymise(plan.customer) == 1

    after = Agreement.objects.get(plan=plan)
    assert (after.ip, after.user_agent) == (None, "")
    assert bytes(after.document) == bytes(before.document)
    assert after.document_sha256 == before.document_sha256
    assert after.key_facts == before.key_facts


def test_the_agreement_is_e_mailed_with_its_pdf_through_the_messages(
    merchant_with_key, shopper, card, consent
):
    plan = bought(merchant_with_key, shopper, card)
    agreement = Agreement.objects.get(plan=plan)
    message = Message.objects.get(kind=Message.Kind.AGREEMENT)
    assert (message.subject, message.channel) == (agreement.public_id, "email")
    assert message.agreement_id == agreement.pk
    assert message.recipient == "ada@mail.example.com"
    assert agreement.document_sha256 in message.body
    assert not Message.objects.filter(kind=Message.Kind.AGREEMENT, channel="sms")

    mail.outbox.clear()
    messages_send_due()

    sent = [m for m in mail.outbox if m.subject == message.title]
    assert len(sent) == 1
    [(name, content, kind)] = sent[0].attachments
    assert name == f"agreement-{plan.public_id}.pdf"
    assert kind == "application/pdf"
    assert hashlib.sha256(content).hexdigest() == agreement.document_sha256
    message.refresh_from_db()
    assert message.status == Message.Status.SENT


def test_the_admin_shows_agreements_read_only_and_serves_the_pdf(
    merchant_with_key, shopper, card, consent, admin_client
):
    plan = bought(merchant_with_key, shopper, card)
    agreement = Agreement.objects.get(plan=plan)
    base = "/admin/installments/agreement/"
    assert admin_client.get(base).status_code == 200
    assert admin_client.get(f"{base}{agreement.pk}/change/").status_code == 200
    assert admin_client.get(f"{base}add/").status_code == 403
    assert admin_client.post(f"{base}{agreement.pk}/delete/").status_code == 403
    pdf = admin_client.get(f"{base}{agreement.pk}/pdf/")
    assert pdf.status_code == 200
    assert hashlib.sha256(pdf.content).hexdigest() == agreement.document_sha256


# --- the property: the record's figures are the plan's, to the kobo ------------------

orders = st.fixed_dictionaries(
    {
        "amount": st.integers(rules.MIN_AMOUNT, 50_000_000),
        "schedule_type": st.sampled_from(rules.SCHEDULE_TYPES),
        "count": st.integers(1, 6),
        "preferred_day": st.one_of(
            st.none(), st.integers(1, 28), st.just(rules.LAST_WORKING_DAY)
        ),
        "day": st.dates(date(2026, 12, 1), date(2027, 12, 31)),
    }
)


class AgreementFiguresOnTheServices(hypothesis.extra.django.TestCase):
    """Each example: one order bought through the checkout's services on a
    random day; rolled back after it."""

    @classmethod
    def setUpTestData(cls):
        shopper = register("ada@mail.example.com")
        cls.customer_id = shopper.customer_id
        cls.card = add_card(shopper)

    @settings(
        max_examples=25,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(order=orders)
    def test_the_agreement_holds_the_plan_s_figures_and_the_box_s(self, order):
        note(f"order={order!r}")
        owner = make_merchant_with_key(
            allowed_schedule_types=list(rules.SCHEDULE_TYPES), max_installments=6
        )
        monthly = order["schedule_type"] == rules.MONTHLY
        preferred = order["preferred_day"] if monthly else None
        noon = datetime.combine(order["day"], LAGOS_NOON, tzinfo=UTC)
        with time_machine.travel(noon, tick=False):
            token = open_session(owner, amount=order["amount"])
            customer = Customer.objects.get(public_id=self.customer_id)
            shown = rules.plan_terms(
                amount=order["amount"],
                score=customer.score,
                schedule_type=order["schedule_type"],
                installment_count=order["count"],
                config=rules.PlanConfig.of(owner.merchant),
                start=timezone.localdate(),
                preferred_day=preferred,
            )
            plan = services.session_complete(
                token=token,
                customer=customer,
                schedule_type=order["schedule_type"],
                installment_count=order["count"],
                payment_method_id=self.card,
                preferred_day=preferred,
                consent=Consent.given(ip=IP, user_agent=AGENT),
            )
        facts = Agreement.objects.get(plan=plan).key_facts
        rows = list(plan.installments.order_by("sequence"))
        assert facts["cash_price"] == plan.total_amount == order["amount"]
        assert facts["deposit"] == plan.deposit_amount
        assert [(i["amount"], i["due_date"]) for i in facts["installments"]] == [
            (row.amount, row.due_date.isoformat()) for row in rows
        ]
        assert facts["total_payable"] == plan.deposit_amount + sum(
            row.amount for row in rows
        )
        assert facts["total_cost_of_credit"] == (
            facts["total_payable"] - plan.total_amount
        )
        assert facts == key_facts(
            merchant=owner.merchant, terms=shown, currency=plan.currency
        )
        session = CheckoutSession.objects.get(plan=plan)
        assert session.status == CheckoutSession.Status.COMPLETED
        assert shown.due_dates[0] > order["day"]


def test_a_plan_collected_from_a_bank_mandate_includes_its_terms(
    merchant_with_key, shopper, consent
):
    bank = add_bank(sign_in_api(shopper.customer))["id"]

    plan = bought(merchant_with_key, shopper, bank)

    agreement = Agreement.objects.get(plan=plan)
    assert agreement.key_facts["mandate_terms"] == MANDATE_TERMS
    assert agreement.key_facts["mandate_terms_version"] == MANDATE_TERMS_VERSION
    text = pdf_text(bytes(agreement.document))
    assert "Bank mandate terms" in text
    assert "debited only on a due date" in text.replace("\n", " ")


def test_a_mandate_set_up_before_its_terms_were_kept_does_not_claim_them(
    merchant_with_key, shopper, consent
):
    bank = add_bank(sign_in_api(shopper.customer))["id"]
    PaymentMethod.objects.filter(public_id=bank).update(mandate_terms_version="")

    plan = bought(merchant_with_key, shopper, bank)

    facts = Agreement.objects.get(plan=plan).key_facts
    assert (
        facts["mandate_terms_version"] == agreement_services.MANDATE_TERMS_NOT_RECORDED
    )
