"""Merchant and customer JWTs: login, roles, refresh rotation, expiry (DESIGN §4)."""

import base64
import json
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from config.api.models import RateCounter

from ..conftest import bearer, customer_jwt, merchant_jwt
from ..factories import CustomerFactory, MerchantFactory

pytestmark = pytest.mark.django_db

ME = "/api/v1/customers/me"


def history_url(merchant):
    return f"/api/v1/merchant/{merchant.public_id}/api-key/history"


def test_merchant_login_returns_tokens_and_merchant_id(api, merchant_active, password):
    response = api.post(
        "/api/v1/auth/merchant/login",
        {"email": merchant_active.email.upper(), "password": password},
        format="json",
    )

    assert response.status_code == 200
    data = response.json()["data"]
    assert set(data) == {"access", "refresh", "merchant_id"}
    assert data["merchant_id"] == merchant_active.public_id
    assert (
        api.get(history_url(merchant_active), **bearer(data["access"])).status_code
        == 200
    )


def test_wrong_password_is_401_soft_error(api, merchant_active):
    response = api.post(
        "/api/v1/auth/merchant/login",
        {"email": merchant_active.email, "password": "Wrong-passw0rd"},
        format="json",
    )
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "invalid_credentials"


def test_customer_register_login_and_me(api):
    registered = api.post(
        "/api/v1/auth/customer/register",
        {
            "email": "Chioma@Mail.ng",
            "password": "Jollof-Rice-2026",
            "first_name": "Chioma",
            "last_name": "Eze",
            "phone": "+2348031234567",
        },
        format="json",
    )
    assert registered.status_code == 201
    customer_id = registered.json()["data"]["customer_id"]
    assert customer_id.startswith("cus_")

    login = api.post(
        "/api/v1/auth/customer/login",
        {"email": "chioma@mail.ng", "password": "Jollof-Rice-2026"},
        format="json",
    )
    me = api.get(ME, **bearer(login.json()["data"]["access"]))

    assert me.status_code == 200
    assert me.json()["data"]["customer_id"] == customer_id
    assert me.json()["data"]["email"] == "chioma@mail.ng"
    assert "password" not in me.json()["data"]


def test_one_email_may_hold_a_merchant_and_a_customer_account(api, password):
    merchant = MerchantFactory(email="both@shop.ng", status="active")
    customer = CustomerFactory(email="both@shop.ng")

    as_customer = api.post(
        "/api/v1/auth/customer/login",
        {"email": "both@shop.ng", "password": password},
        format="json",
    ).json()["data"]
    as_merchant = api.post(
        "/api/v1/auth/merchant/login",
        {"email": "both@shop.ng", "password": password},
        format="json",
    ).json()["data"]

    assert as_customer["customer_id"] == customer.public_id
    assert as_merchant["merchant_id"] == merchant.public_id
    assert api.get(ME, **bearer(as_merchant["access"])).status_code == 403
    assert (
        api.get(history_url(merchant), **bearer(as_customer["access"])).status_code
        == 403
    )


def test_merchant_jwt_is_refused_on_a_customer_endpoint(api, merchant_active):
    response = api.get(ME, **bearer(merchant_jwt(merchant_active)))

    assert response.status_code == 403
    assert "customer JWT" in response.json()["detail"]


def test_api_key_is_refused_on_a_customer_endpoint(api, merchant_with_key):
    assert api.get(ME, **merchant_with_key.headers).status_code == 403


def test_no_credential_on_customer_endpoint_is_401(api):
    assert api.get(ME).status_code == 401


def test_access_token_expires_after_15_minutes(api, customer):
    token = customer_jwt(customer)
    assert api.get(ME, **bearer(token)).status_code == 200
    with time_machine.travel(timezone.now() + timedelta(minutes=16)):
        response = api.get(ME, **bearer(token))
    assert response.status_code == 401
    assert "expired" in response.json()["detail"]


def _b64(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


def test_token_signed_with_alg_none_is_refused(api, customer):
    genuine = customer_jwt(customer)
    payload = json.loads(base64.urlsafe_b64decode(genuine.split(".")[1] + "=="))
    forged = f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(payload)}."

    assert api.get(ME, **bearer(forged)).status_code == 401


def test_token_with_a_swapped_role_claim_is_refused(api, customer):
    genuine = customer_jwt(customer)
    header, payload, signature = genuine.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=="))
    claims["role"] = "merchant"
    forged = f"{header}.{_b64(claims)}.{signature}"

    assert api.get(ME, **bearer(forged)).status_code == 401


def test_refresh_rotates_and_each_refresh_token_works_once(api, customer, password):
    tokens = api.post(
        "/api/v1/auth/customer/login",
        {"email": customer.email, "password": password},
        format="json",
    ).json()["data"]

    first = api.post(
        "/api/v1/auth/token/refresh", {"refresh": tokens["refresh"]}, format="json"
    )
    again = api.post(
        "/api/v1/auth/token/refresh", {"refresh": tokens["refresh"]}, format="json"
    )

    assert first.status_code == 200
    new = first.json()["data"]
    assert set(new) == {"access", "refresh"}
    assert new["refresh"] != tokens["refresh"]
    assert api.get(ME, **bearer(new["access"])).status_code == 200
    assert again.status_code == 401


def test_access_token_cannot_be_used_as_refresh(api, customer):
    response = api.post(
        "/api/v1/auth/token/refresh", {"refresh": customer_jwt(customer)}, format="json"
    )
    assert response.status_code == 401


def test_refresh_token_cannot_be_used_as_access(api, customer, password):
    tokens = api.post(
        "/api/v1/auth/customer/login",
        {"email": customer.email, "password": password},
        format="json",
    ).json()["data"]
    assert api.get(ME, **bearer(tokens["refresh"])).status_code == 401


def test_refresh_expires_after_7_days(api, customer, password):
    tokens = api.post(
        "/api/v1/auth/customer/login",
        {"email": customer.email, "password": password},
        format="json",
    ).json()["data"]
    with time_machine.travel(timezone.now() + timedelta(days=7, minutes=1)):
        response = api.post(
            "/api/v1/auth/token/refresh", {"refresh": tokens["refresh"]}, format="json"
        )
    assert response.status_code == 401


def test_five_failed_logins_lock_the_account_for_the_window(
    api, merchant_active, password
):
    url = "/api/v1/auth/merchant/login"
    start = timezone.now().replace(minute=0, second=0, microsecond=0)
    with time_machine.travel(start, tick=False):
        for _ in range(5):
            wrong = api.post(
                url,
                {"email": merchant_active.email, "password": "nope-nope-1"},
                format="json",
            )
            assert wrong.status_code == 401
        locked = api.post(
            url, {"email": merchant_active.email, "password": password}, format="json"
        )
        assert locked.status_code == 429
        assert locked.json()["error"]["code"] == "rate_limited"
        assert int(locked["Retry-After"]) == 15 * 60
        # Another account from the same address is unaffected.
        other = MerchantFactory(status="active")
        assert (
            api.post(
                url, {"email": other.email, "password": password}, format="json"
            ).status_code
            == 200
        )
    with time_machine.travel(start + timedelta(minutes=15), tick=False):
        again = api.post(
            url, {"email": merchant_active.email, "password": password}, format="json"
        )
        assert again.status_code == 200


@pytest.mark.parametrize("kind", ["merchant", "customer"])
def test_a_failed_login_with_a_254_character_email_is_a_401(api, kind):
    # Was a 500 on PostgreSQL: the failure counter's key held the address, and
    # counter keys are 200 characters at most.
    email = "ab@" + ".".join(["b" * 63, "c" * 63, "d" * 63, "e" * 59])
    assert len(email) == 254
    for _ in range(5):
        response = api.post(
            f"/api/v1/auth/{kind}/login",
            {"email": email, "password": "wrong-pass-1"},
            format="json",
        )
        assert response.status_code == 401
    locked = api.post(
        f"/api/v1/auth/{kind}/login",
        {"email": email, "password": "wrong-pass-1"},
        format="json",
    )
    assert locked.status_code == 429
    assert all(len(counter.key) <= 200 for counter in RateCounter.objects.all())


def test_customer_login_failures_are_throttled_too(api, customer):
    url = "/api/v1/auth/customer/login"
    start = timezone.now().replace(minute=0, second=0, microsecond=0)
    with time_machine.travel(start, tick=False):
        for _ in range(5):
            api.post(
                url, {"email": customer.email, "password": "bad-pass-1"}, format="json"
            )
        response = api.post(
            url, {"email": customer.email, "password": "bad-pass-1"}, format="json"
        )
    assert response.status_code == 429


def test_per_ip_login_budget(api, merchant_active, password, settings):
    settings.LOGIN_REQUESTS_PER_IP_PER_MINUTE = 3
    url = "/api/v1/auth/merchant/login"
    start = timezone.now().replace(second=0, microsecond=0)
    with time_machine.travel(start, tick=False):
        codes = [
            api.post(
                url,
                {"email": merchant_active.email, "password": password},
                format="json",
            ).status_code
            for _ in range(4)
        ]
    assert codes == [200, 200, 200, 429]


def test_duplicate_customer_email_is_409(api, customer):
    response = api.post(
        "/api/v1/auth/customer/register",
        {
            "email": customer.email.upper(),
            "password": "Jollof-Rice-2026",
            "first_name": "A",
            "last_name": "B",
            "phone": "08031234567",
        },
        format="json",
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "email_already_registered"


def test_customer_phone_must_be_digits(api):
    response = api.post(
        "/api/v1/auth/customer/register",
        {
            "email": "x@y.ng",
            "password": "Jollof-Rice-2026",
            "first_name": "A",
            "last_name": "B",
            "phone": "call me maybe",
        },
        format="json",
    )
    assert response.status_code == 400
    assert "phone" in response.json()["errors"]
