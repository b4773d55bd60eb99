"""Every answer that carries a token, a refresh token, an API key or a webhook
secret says `Cache-Control: no-store`, so no browser or proxy cache keeps a copy
(issue 14)."""

import re
import uuid

import pytest
from django.test import Client
from django.utils.cache import get_max_age

from ..checkout.conftest import open_session, session_body
from ..conftest import bearer, merchant_jwt
from ..dashboards import sign_in
from ..factories import PASSWORD

pytestmark = pytest.mark.django_db


def assert_no_store(response) -> None:
    directives = {
        part.strip() for part in response.get("Cache-Control", "").split(",") if part
    }
    assert "no-store" in directives, response.get("Cache-Control")
    assert "private" in directives
    assert get_max_age(response) == 0


def test_merchant_login(api, merchant_active):
    response = api.post(
        "/api/v1/auth/merchant/login",
        {"email": merchant_active.email, "password": PASSWORD},
        format="json",
    )

    assert response.status_code == 200
    assert_no_store(response)


def test_customer_registration(api):
    response = api.post(
        "/api/v1/auth/customer/register",
        {
            "email": "kemi@mail.example.com",
            "password": PASSWORD,
            "first_name": "Kemi",
            "last_name": "Ade",
            "phone": "+2348031234567",
        },
        format="json",
    )

    assert response.status_code == 201
    assert "refresh" in response.json()["data"]
    assert_no_store(response)


def test_customer_login_and_refresh(api, customer):
    login = api.post(
        "/api/v1/auth/customer/login",
        {"email": customer.email, "password": PASSWORD},
        format="json",
    )
    refreshed = api.post(
        "/api/v1/auth/token/refresh",
        {"refresh": login.json()["data"]["refresh"]},
        format="json",
    )

    assert login.status_code == 200
    assert_no_store(login)
    assert refreshed.status_code == 200
    assert_no_store(refreshed)


@pytest.mark.parametrize("credential", ["api_key", "merchant_jwt"])
def test_rotate_api_key(api, merchant_with_key, credential):
    merchant = merchant_with_key.merchant
    headers = (
        merchant_with_key.headers
        if credential == "api_key"
        else bearer(merchant_jwt(merchant))
    )

    response = api.post(
        f"/api/v1/merchant/{merchant.public_id}/rotate-api-key",
        {},
        format="json",
        **headers,
    )

    assert response.status_code == 201
    assert response.json()["data"]["apiKey"].startswith("service_live_sk_")
    assert_no_store(response)


def test_checkout_session_creation_and_its_replay(api, merchant_with_key):
    headers = {**merchant_with_key.headers, "HTTP_IDEMPOTENCY_KEY": str(uuid.uuid4())}
    body = session_body(merchant_with_key.merchant)

    created = api.post("/api/v1/checkout/sessions", body, format="json", **headers)
    replayed = api.post("/api/v1/checkout/sessions", body, format="json", **headers)

    assert created.status_code == 201
    assert_no_store(created)
    assert replayed["Idempotent-Replayed"] == "true"
    assert_no_store(replayed)


def test_dashboard_pages_showing_a_new_key_or_webhook_secret(merchant_active):
    dashboard = sign_in(Client(), merchant_active)

    key = dashboard.post("/dashboard/keys/", {"name": "Server"})
    secret = dashboard.post("/dashboard/settings/", {"action": "webhook_secret"})

    assert re.search(r"service_live_sk_[\w-]{40,}", key.content.decode())
    assert_no_store(key)
    assert re.search(r"whsec_[\w-]{20,}", secret.content.decode())
    assert_no_store(secret)


def test_hosted_checkout_pages_and_the_widget_demo(merchant_with_key):
    token = open_session(merchant_with_key)
    browser = Client()

    page = browser.get(f"/checkout/{token}")
    framed = browser.get(
        f"/checkout/{token}",
        HTTP_SEC_FETCH_DEST="iframe",
        HTTP_SEC_FETCH_SITE="cross-site",
    )
    demo = browser.get("/demo/", {"session_token": token})

    for response in (page, framed, demo):
        assert token in response.content.decode()
        assert_no_store(response)
