"""Endpoint 1: merchant registration (DESIGN section 5)."""

import pytest
from django.core import mail

from merchants.models import Merchant
from merchants.team.selectors import owner_of

URL = "/api/v1/auth/merchant/register"

pytestmark = pytest.mark.django_db


def body(**overrides):
    return {
        "email": "owner@adaeze-fabrics.ng",
        "password": "Kente-and-Aso-0ke",
        "business_name": "Adaeze Fabrics",
        "business_url": "https://adaeze-fabrics.ng",
        **overrides,
    }


def test_register_creates_pending_merchant_and_acknowledges_by_email(api, committed):
    with committed():
        response = api.post(URL, body(), format="json")

    assert response.status_code == 201
    data = response.json()["data"]
    assert response.json()["ok"] is True
    assert data["status"] == "pending"
    assert data["email"] == "owner@adaeze-fabrics.ng"
    assert data["merchantId"].startswith("mer_")
    merchant = Merchant.objects.get(public_id=data["merchantId"])
    assert merchant.api_access_enabled is False
    assert merchant.rate_plan == "sandbox"
    owner = owner_of(merchant)
    assert owner.email == merchant.email
    assert owner.password != "Kente-and-Aso-0ke"
    assert owner.check_password("Kente-and-Aso-0ke")
    assert [m.to for m in mail.outbox] == [["owner@adaeze-fabrics.ng"]]
    assert "received" in mail.outbox[0].subject


def test_merchant_ids_are_opaque_not_sequential(api):
    first = api.post(URL, body(email="a@shop.ng"), format="json").json()["data"]
    second = api.post(URL, body(email="b@shop.ng"), format="json").json()["data"]
    assert first["merchantId"] != second["merchantId"]
    assert len(first["merchantId"]) >= len("mer_") + 16
    assert not first["merchantId"][4:].isdigit()


def test_duplicate_email_is_409_whatever_the_case(api):
    assert api.post(URL, body(), format="json").status_code == 201
    response = api.post(URL, body(email="OWNER@Adaeze-Fabrics.ng"), format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "email_already_registered"
    assert Merchant.objects.count() == 1


@pytest.mark.parametrize(
    "password, message",
    [
        ("short1!", "too short"),
        ("password123", "too common"),
        ("73926481057392", "entirely numeric"),
        ("owner@adaeze-fabrics.ng", "too similar"),
    ],
)
def test_weak_passwords_are_refused_with_the_reason(api, password, message):
    response = api.post(URL, body(password=password), format="json")

    assert response.status_code == 400
    assert message in response.json()["detail"]
    assert "password" in response.json()["errors"]
    assert Merchant.objects.count() == 0


@pytest.mark.parametrize(
    "overrides, field",
    [
        ({"email": "not-an-email"}, "email"),
        ({"business_url": "ftp//nowhere"}, "business_url"),
        ({"business_name": ""}, "business_name"),
        ({"business_name": "x" * 201}, "business_name"),
        ({"email": 42}, "email"),
        ({"password": ["a", "list"]}, "password"),
        ({"business_name": {"nested": True}}, "business_name"),
    ],
)
def test_invalid_fields_get_400_naming_the_field(api, overrides, field):
    response = api.post(URL, body(**overrides), format="json")

    assert response.status_code == 400
    assert field in response.json()["errors"]
    assert field in response.json()["detail"]
    assert Merchant.objects.count() == 0


def test_missing_fields_are_each_reported(api):
    response = api.post(URL, {}, format="json")

    assert response.status_code == 400
    assert set(response.json()["errors"]) == {
        "email",
        "password",
        "business_name",
        "business_url",
    }
    assert "required" in response.json()["detail"]


@pytest.mark.parametrize(
    "business_url",
    ["ftp://adaeze-fabrics.ng", "ftps://adaeze-fabrics.ng/shop"],
)
def test_a_business_url_that_is_not_a_web_address_is_refused(api, business_url):
    response = api.post(URL, body(business_url=business_url), format="json")

    assert response.status_code == 400
    assert response.json()["errors"] == {
        "business_url": ["The business URL must start with http:// or https://."]
    }
    assert Merchant.objects.count() == 0


def test_a_plain_http_business_url_is_accepted(api):
    response = api.post(
        URL, body(business_url="http://adaeze-fabrics.ng"), format="json"
    )

    assert response.status_code == 201
    assert Merchant.objects.get().business_url == "http://adaeze-fabrics.ng"
