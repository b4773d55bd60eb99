"""A bank mandate's terms (DESIGN section 18): shown with an unticked box,
accepted to start the mandate, recorded on the payment method it saves."""

from html import unescape

from django.test import Client

from payments.methods.terms import (
    MANDATE_TERMS,
    MANDATE_TERMS_LABEL,
    MANDATE_TERMS_VERSION,
)
from payments.models import BankMandate, PaymentMethod, SandboxTransaction

from ..factories import CustomerFactory
from ..installments.account import signed_in, text
from .conftest import add_bank, initiate_mandate

AGENT = "Mozilla/5.0 (Mandate terms test)"


def test_a_mandate_without_the_terms_accepted_is_422_and_charges_nothing(alice):
    for refused in (
        initiate_mandate(alice, "0123456780", terms_accepted=False),
        alice.post(
            f"/api/v1/payment-methods/customers/{alice.id}/initiate-bank-mandate",
            {"bank_code": "044", "account_number": "0123456780"},
        ),
    ):
        assert refused.status_code == 422, refused.content
        error = refused.json()["error"]
        assert error["code"] == "terms_not_accepted"
        assert "terms_accepted" in error["message"]
    assert not BankMandate.objects.exists()
    assert not SandboxTransaction.objects.exists()


def test_the_accepted_terms_are_recorded_on_the_saved_method(alice):
    alice.client.credentials(
        HTTP_AUTHORIZATION=alice.client._credentials["HTTP_AUTHORIZATION"],
        HTTP_USER_AGENT=AGENT,
    )
    saved = add_bank(alice)

    method = PaymentMethod.objects.get(public_id=saved["id"])
    assert method.mandate_terms_version == MANDATE_TERMS_VERSION
    assert method.mandate_terms_accepted_at is not None
    assert method.mandate_terms_ip == "127.0.0.1"
    assert method.mandate_terms_user_agent == AGENT


def test_the_bank_page_shows_the_terms_with_an_unticked_box(fresh_cache):
    client = signed_in(CustomerFactory().email)

    page = client.get("/account/methods/bank/")

    html = page.content.decode()
    assert MANDATE_TERMS in unescape(text(page))
    assert MANDATE_TERMS_LABEL in unescape(text(page))
    box = html[html.index('name="terms_accepted"') - 200 :]
    box = box[: box.index(">", 200) + 1]
    assert 'type="checkbox"' in box and "checked" not in box


def test_the_bank_page_refuses_a_mandate_without_the_box_ticked(fresh_cache):
    customer = CustomerFactory()
    client: Client = signed_in(customer.email)

    refused = client.post(
        "/account/methods/bank/", {"bank_code": "044", "account_number": "0123456780"}
    )

    assert refused.status_code == 400
    assert "Tick the box to accept the mandate terms" in text(refused)
    assert not BankMandate.objects.filter(customer=customer).exists()

    started = client.post(
        "/account/methods/bank/",
        {"bank_code": "044", "account_number": "0123456780", "terms_accepted": "on"},
    )
    assert started.status_code == 303
    mandate = BankMandate.objects.get(customer=customer)
    assert mandate.terms_version == MANDATE_TERMS_VERSION
    assert mandate.terms_accepted_at is not None
