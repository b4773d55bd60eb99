"""The schema admits what the server accepts and refuses what it refuses.

Each case is sent to the server with real credentials and ids of the contract
`world`, and checked against the request schema of GET /api/v1/schema/: the
server's answer must be the one the case names, and the schema must agree (a body
the server refuses with 400/422 is one the schema refuses). These are the edges
where the schema used to admit what the server refuses (blank passwords, `{}` for
the toggle, free strings where the server has an enum, unbounded amounts and
counts) or refuse what it accepts; the schemathesis run checks the rest.
"""

import json
import uuid
from dataclasses import dataclass, field

import pytest
from openapi_schema_validator import OAS30Validator, oas30_format_checker
from rest_framework.test import APIClient

from payments.gateway.services.inbound import SIGNATURE_HEADER, signature_for

pytestmark = pytest.mark.django_db

PASSWORD = "Jollof-Rice-2026"
LONG_HOST = ".".join(["a" * 63, "b" * 63, "c" * 63, "d" * 61, "com"])


@pytest.fixture(scope="module")
def document(django_db_blocker):
    with django_db_blocker.unblock():
        response = APIClient().get("/api/v1/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    return json.loads(response.content)


def admits(document: dict, schema: dict, value) -> bool:
    validator = OAS30Validator(
        {**schema, "components": document["components"]},
        format_checker=oas30_format_checker,
    )
    return validator.is_valid(value)


@dataclass
class Case:
    method: str
    path: str
    body: dict
    status: int
    credential: str | None = None
    headers: dict = field(default_factory=dict)

    @property
    def refused(self) -> bool:
        return self.status in (400, 422)


def session(**changes) -> dict:
    return {
        "merchant_id": "{merchant_id}",
        "amount": 500_000,
        "currency": "NGN",
        "title": "Chair",
        "order_reference": f"edge-{uuid.uuid4().hex}",
        **changes,
    }


def preview(**changes) -> dict:
    return {
        "merchant_id": "{merchant_id}",
        "amount": 500_000,
        "schedule_type": "monthly",
        "installment_count": 3,
        **changes,
    }


def customer(**changes) -> dict:
    return {
        "email": f"edge-{uuid.uuid4().hex[:8]}@mail.example",
        "password": PASSWORD,
        "first_name": "Ada",
        "last_name": "Obi",
        "phone": "08031234567",
        **changes,
    }


def merchant(**changes) -> dict:
    return {
        "email": f"edge-{uuid.uuid4().hex[:8]}@shop.example",
        "password": PASSWORD,
        "business_name": "Edge Shop",
        "business_url": "https://shop.example.com",
        **changes,
    }


def link(**changes) -> dict:
    return {
        "merchant_id": "{merchant_id}",
        "title": "Chair",
        "amount": 4_500_000,
        "currency": "NGN",
        **changes,
    }


def mandate_step(**changes) -> dict:
    return {"customer_id": "{customer_id}", "reference": "mnd_unknown", **changes}


SESSIONS = "/api/v1/checkout/sessions"
PREVIEW = "/api/v1/checkout/preview"
SETTINGS = "/api/v1/merchant/{merchant_id}/settings"
TOGGLE = "/api/v1/payment-links/{link_id}/toggle"
LINKS = "/api/v1/payment-links"
WEBHOOK_TEST = "/api/v1/webhooks/test"
V1_UUID = str(uuid.uuid1())

CASES = {
    # What the server refuses, and the schema used to admit.
    "blank login password": Case(
        "post", "/api/v1/auth/merchant/login", {"email": "a@b.com", "password": ""}, 400
    ),
    "short new password": Case(
        "post", "/api/v1/auth/merchant/register", merchant(password="Abc-123"), 400
    ),
    "all-digit new password": Case(
        "post", "/api/v1/auth/customer/register", customer(password="90817263"), 400
    ),
    "blank name": Case(
        "post", "/api/v1/auth/customer/register", customer(first_name=" \t"), 400
    ),
    "a host name over 253 characters": Case(
        "post", LINKS, link(redirect_url=f"https://{LONG_HOST}/"), 400, "api_key"
    ),
    "toggle without is_active": Case("patch", TOGGLE, {}, 400, "api_key"),
    "unsupported currency": Case(
        "post", SESSIONS, session(currency="USD"), 400, "api_key"
    ),
    "amount under the minimum": Case(
        "post", SESSIONS, session(amount=9_999), 400, "api_key"
    ),
    "amount over the maximum": Case(
        "post", SESSIONS, session(amount=1_000_000_001), 400, "api_key"
    ),
    "blank merchant_id": Case(
        "post", SESSIONS, session(merchant_id="   "), 400, "api_key"
    ),
    "control character in a title": Case(
        "post", SESSIONS, session(title="Chair\x07"), 400, "api_key"
    ),
    "NUL in a free text": Case(
        "post", LINKS, link(description="a\x00b"), 400, "api_key"
    ),
    "a UUID that is not v4": Case(
        "post",
        SESSIONS,
        session(),
        400,
        "api_key",
        headers={"Idempotency-Key": V1_UUID},
    ),
    "unknown schedule type": Case(
        "post", PREVIEW, preview(schedule_type="yearly"), 422, "api_key"
    ),
    "installment count over 12": Case(
        "post", PREVIEW, preview(installment_count=13), 422, "api_key"
    ),
    "installment count of 0": Case(
        "post", PREVIEW, preview(installment_count=0), 422, "api_key"
    ),
    "a preferred day past the 28th": Case(
        "post", PREVIEW, preview(preferred_day=29), 400, "api_key"
    ),
    "a preferred day in a string": Case(
        "post", PREVIEW, preview(preferred_day="25"), 400, "api_key"
    ),
    "another name for the last working day": Case(
        "post", PREVIEW, preview(preferred_day="last"), 400, "api_key"
    ),
    # The merchant offers monthly plans only (422 before the preferred day is
    # judged); the schema refuses a preferred day on any other schedule.
    "a preferred day with a weekly plan": Case(
        "post",
        PREVIEW,
        preview(schedule_type="weekly", preferred_day=25),
        422,
        "api_key",
    ),
    "unknown release rule": Case(
        "patch",
        SETTINGS,
        {"release_rule": "after_installments:13"},
        400,
        "merchant_jwt",
    ),
    "installment bounds out of order": Case(
        "patch",
        SETTINGS,
        {"min_installments": 5, "max_installments": 3},
        400,
        "merchant_jwt",
    ),
    "a webhook URL that is not http(s)": Case(
        "post",
        WEBHOOK_TEST,
        {"webhook_url": "ftp://hooks.example.com/in"},
        400,
        "merchant_jwt",
    ),
    "an OTP with letters": Case(
        "post",
        "/api/v1/payment-methods/bank-mandate/submit-otp",
        mandate_step(otp="12ab"),
        400,
        "customer_jwt",
    ),
    "a birthday in the future": Case(
        "post",
        "/api/v1/payment-methods/bank-mandate/submit-birthday",
        mandate_step(birthday="2999-01-01"),
        400,
        "customer_jwt",
    ),
    # What the server accepts, at the edges of what it refuses.
    "padded title and reference": Case(
        "post",
        SESSIONS,
        session(title="  Chair  ", order_reference=f" edge-{uuid.uuid4().hex} "),
        201,
        "api_key",
    ),
    "a preferred day": Case("post", PREVIEW, preview(preferred_day=28), 200, "api_key"),
    "the last working day": Case(
        "post", PREVIEW, preview(preferred_day="last_working_day"), 200, "api_key"
    ),
    "no preferred day": Case(
        "post", PREVIEW, preview(preferred_day=None), 200, "api_key"
    ),
    "bounds of the amount": Case(
        "post", SESSIONS, session(amount=1_000_000_000), 201, "api_key"
    ),
    "an ftp business URL": Case(
        "post",
        "/api/v1/auth/merchant/register",
        merchant(business_url="ftp://shop.example.com"),
        400,
    ),
    "a localhost redirect": Case(
        "post",
        LINKS,
        link(redirect_url="http://localhost:3000/thanks?a=1"),
        201,
        "api_key",
    ),
    "a password of spaces at login": Case(
        "post",
        "/api/v1/auth/customer/login",
        {"email": "a@b.com", "password": " "},
        401,
    ),
    "an empty webhook URL": Case(
        "patch", SETTINGS, {"webhook_url": ""}, 200, "merchant_jwt"
    ),
    "installment bounds in order": Case(
        "patch",
        SETTINGS,
        {"min_installments": 2, "max_installments": 2},
        200,
        "merchant_jwt",
    ),
}


def _fill(value, ids: dict):
    if isinstance(value, str):
        return value.format(**ids) if "{" in value else value
    if isinstance(value, dict):
        return {key: _fill(item, ids) for key, item in value.items()}
    return value


@pytest.mark.parametrize("name", list(CASES))
def test_the_schema_admits_what_the_server_accepts(name, world, document):
    case = CASES[name]
    ids = {
        "merchant_id": world.me.merchant.public_id,
        "customer_id": world.me.customer.public_id,
        "link_id": world.link.public_id,
    }
    path = case.path.format(**ids)
    body = _fill(case.body, ids)
    headers = {
        f"HTTP_{key.upper().replace('-', '_')}": value
        for key, value in case.headers.items()
    }
    if case.credential:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {world.me.token(case.credential)}"
    response = getattr(APIClient(), case.method)(path, body, format="json", **headers)
    assert response.status_code == case.status, response.content

    operation = document["paths"][case.path][case.method]
    admitted = admits(
        document,
        operation["requestBody"]["content"]["application/json"]["schema"],
        body,
    )
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "header" and parameter["name"] in case.headers:
            value = case.headers[parameter["name"]]
            admitted = admitted and admits(document, parameter["schema"], value)
    assert admitted is not case.refused


@pytest.mark.parametrize(
    "path", ["/api/v1/webhooks/paystack", "/api/v1/webhooks/payment-gateway"]
)
def test_processor_events_need_a_body(api, db, document, path):
    response = api.post(
        path,
        b"",
        content_type="application/json",
        **{f"HTTP_{SIGNATURE_HEADER.upper().replace('-', '_')}": signature_for(b"")},
    )
    assert response.status_code == 400
    assert document["paths"][path]["post"]["requestBody"]["required"] is True
