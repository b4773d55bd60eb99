"""Signing up on the web (`/dashboard/signup/`, DESIGN section 16): the same rules,
messages and e-mail as the API's registration, then the dashboard with the pending
banner until staff approve the account."""

import html
import re

import pytest
from django.core import mail
from django.test import Client

from merchants import services
from merchants.models import Merchant

from ..factories import MerchantFactory
from .conftest import sign_in

pytestmark = pytest.mark.django_db

URL = "/dashboard/signup/"
API_URL = "/api/v1/auth/merchant/register"


def body(**overrides):
    return {
        "business_name": "Adaeze Fabrics",
        "business_url": "https://adaeze-fabrics.ng",
        "email": "owner@adaeze-fabrics.ng",
        "password": "Kente-and-Aso-0ke",
        **overrides,
    }


def field_errors(page: str) -> dict[str, list[str]]:
    """The messages shown under each field of a rendered form."""
    errors = {}
    for chunk in page.split('data-field="')[1:]:
        name = chunk.split('"', 1)[0]
        messages = re.findall(r'<p class="field-error"[^>]*>(.*?)</p>', chunk, re.S)
        if messages:
            errors[name] = [html.unescape(message) for message in messages]
    return errors


def test_signing_up_creates_a_pending_merchant_like_the_api_and_signs_in(
    client, committed
):
    with committed():
        response = client.post(URL, body(email=" Owner@Adaeze-Fabrics.NG"))

    assert response.status_code == 303
    assert response["Location"] == "/dashboard/"
    merchant = Merchant.objects.get()
    assert merchant.email == "owner@adaeze-fabrics.ng"
    assert merchant.business_name == "Adaeze Fabrics"
    assert merchant.status == Merchant.Status.PENDING
    assert merchant.api_access_enabled is False
    assert merchant.rate_plan == "sandbox"
    assert merchant.check_password("Kente-and-Aso-0ke")
    assert [message.to for message in mail.outbox] == [[merchant.email]]
    assert mail.outbox[0].subject == "We received your merchant application"

    overview = client.get("/dashboard/")
    assert overview.status_code == 200
    assert 'data-testid="status-banner"' in overview.content.decode()
    assert "pending approval" in overview.content.decode()


def test_the_banner_stays_until_staff_approve_the_account(client, committed):
    with committed():
        client.post(URL, body())
    merchant = Merchant.objects.get()

    assert "pending approval" in client.get("/dashboard/").content.decode()
    services.merchant_approve(merchant=merchant)

    assert (
        'data-testid="status-banner"' not in client.get("/dashboard/").content.decode()
    )


def test_web_and_api_send_the_same_acknowledgement(client, api, committed):
    with committed():
        api.post(API_URL, body(email="api@shop.ng"), format="json")
        client.post(URL, body(email="web@shop.ng"))

    by_api, by_web = mail.outbox
    assert (by_web.subject, by_web.body) == (by_api.subject, by_api.body)


@pytest.mark.parametrize(
    "overrides",
    [
        {"business_name": ""},
        {"business_name": "x" * 201},
        {"business_url": "ftp://adaeze-fabrics.ng"},
        {"business_url": "not a url"},
        {"email": "not-an-email"},
        {"email": ""},
        {"password": "short1!"},
        {"password": "password123"},
        {"password": "73926481057392"},
        {"password": "owner@adaeze-fabrics.ng"},
        {"password": "", "email": "", "business_url": "", "business_name": ""},
    ],
)
def test_sign_up_refuses_what_registration_refuses_with_the_same_messages(
    client, api, overrides
):
    refused = api.post(API_URL, body(**overrides), format="json")
    assert refused.status_code == 400

    response = client.post(URL, body(**overrides))

    assert response.status_code == 400
    assert field_errors(response.content.decode()) == refused.json()["errors"]
    assert Merchant.objects.count() == 0
    assert mail.outbox == []
    assert client.get("/dashboard/").status_code == 302  # not signed in


def test_an_address_already_registered_is_refused_next_to_the_field(client):
    MerchantFactory(email="owner@adaeze-fabrics.ng")

    response = client.post(URL, body(email="OWNER@adaeze-fabrics.ng"))

    assert response.status_code == 400
    assert field_errors(response.content.decode()) == {
        "email": ["A merchant account with this e-mail address already exists."]
    }
    assert Merchant.objects.count() == 1
    assert client.get("/dashboard/").status_code == 302


def test_a_refused_form_keeps_what_was_typed_but_not_the_password(client):
    response = client.post(URL, body(password="short1!"))

    page = response.content.decode()
    assert 'value="Adaeze Fabrics"' in page
    assert 'value="https://adaeze-fabrics.ng"' in page
    assert "short1!" not in page


def test_sign_up_and_sign_in_link_to_each_other(client):
    assert 'href="/dashboard/login/"' in client.get(URL).content.decode()
    assert (
        'href="/dashboard/signup/"' in client.get("/dashboard/login/").content.decode()
    )


def test_a_signed_in_merchant_is_sent_to_the_overview(client, merchant_active):
    sign_in(client, merchant_active)

    response = client.get(URL)

    assert response.status_code == 302
    assert response["Location"] == "/dashboard/"


def test_sign_up_refuses_a_post_without_the_csrf_token():
    client = Client(enforce_csrf_checks=True)

    response = client.post(URL, body())

    assert response.status_code == 403
    assert Merchant.objects.count() == 0
