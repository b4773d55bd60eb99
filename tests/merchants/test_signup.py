"""Signing up on the web (`/dashboard/signup/`, DESIGN section 16): the same rules,
messages and e-mail as the API's registration, then the dashboard with the pending
banner until staff approve the account."""

import pytest
from django.core import mail
from django.test import Client

from merchants import services
from merchants.models import Merchant
from merchants.team.selectors import owner_of

from ..dashboards import sign_in
from ..factories import MerchantFactory
from .forms import field_errors

pytestmark = pytest.mark.django_db

URL = "/dashboard/signup/"
DONE_URL = "/dashboard/signup/done/"
API_URL = "/api/v1/auth/merchant/register"


def body(**overrides):
    return {
        "business_name": "Adaeze Fabrics",
        "business_url": "https://adaeze-fabrics.ng",
        "email": "owner@adaeze-fabrics.ng",
        "password": "Kente-and-Aso-0ke",
        **overrides,
    }


def test_signing_up_creates_a_pending_merchant_like_the_api_then_asks_to_sign_in(
    client, committed
):
    with committed():
        response = client.post(URL, body(email=" Owner@Adaeze-Fabrics.NG"))

    assert response.status_code == 303
    assert response["Location"] == DONE_URL
    merchant = Merchant.objects.get()
    assert merchant.email == "owner@adaeze-fabrics.ng"
    assert merchant.business_name == "Adaeze Fabrics"
    assert merchant.status == Merchant.Status.PENDING
    assert merchant.api_access_enabled is False
    assert merchant.rate_plan == "sandbox"
    assert owner_of(merchant).check_password("Kente-and-Aso-0ke")
    assert [message.to for message in mail.outbox] == [[merchant.email]]
    assert mail.outbox[0].subject == "We received your merchant application"
    done = client.get(DONE_URL).content.decode()
    assert "Check your e-mail" in done
    assert 'href="/dashboard/login/"' in done
    # Not signed in by the form (an existing address gets the same answer).
    assert client.get("/dashboard/").status_code == 302

    sign_in(client, merchant, "Kente-and-Aso-0ke")
    overview = client.get("/dashboard/")
    assert overview.status_code == 200
    assert 'data-testid="status-banner"' in overview.content.decode()
    assert "pending approval" in overview.content.decode()


def test_the_banner_stays_until_staff_approve_the_account(client, committed):
    with committed():
        client.post(URL, body())
    merchant = Merchant.objects.get()
    sign_in(client, merchant, "Kente-and-Aso-0ke")

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


def _answer(response) -> tuple:
    """What a browser is shown for a sign-up: the status, where it is sent, and
    the page it then lands on."""
    page = Client().get(response["Location"])
    return response.status_code, response["Location"], page.content.decode()


def test_an_address_already_registered_gets_the_answer_of_a_new_sign_up(
    client, committed
):
    """The form tells a stranger nothing: the owner is told by e-mail instead."""
    owner = MerchantFactory(email="owner@adaeze-fabrics.ng", business_name="Owner")
    with committed():
        taken = client.post(URL, body(email="OWNER@adaeze-fabrics.ng"))
    with committed():
        new = Client().post(URL, body(email="new@adaeze-fabrics.ng"))

    assert _answer(taken) == _answer(new)
    assert sorted(taken.cookies) == sorted(new.cookies) == []
    assert Merchant.objects.filter(email=owner.email).get() == owner
    assert owner.business_name == "Owner"
    warning, acknowledgement = mail.outbox
    assert warning.to == [owner.email]
    assert warning.subject == "Someone tried to sign up with your e-mail address"
    assert "No new account was created" in warning.body
    assert "/dashboard/password-reset/" in warning.body
    assert "Adaeze Fabrics" not in warning.body
    assert acknowledgement.to == ["new@adaeze-fabrics.ng"]
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
