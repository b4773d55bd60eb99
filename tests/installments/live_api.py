"""The API over real HTTP to a live server, a customer with a card, and the
receiver's signature check."""

import hashlib
import hmac
from urllib.parse import parse_qs, urlsplit

import requests

from payments.gateway.processors.sandbox.values import CARD_SUCCEEDS

from ..factories import PASSWORD
from ..webhooks.conftest import SECRET

CALLBACK_URL = "https://shop.example.com/cards/done"


class Api:
    """JSON over HTTP to the live server, as one caller (a bearer token)."""

    def __init__(self, base: str, token: str = ""):
        self.base = base
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = f"Bearer {token}"

    def post(self, path: str, body: dict | None = None, expect: int = 200) -> dict:
        response = self.session.post(f"{self.base}{path}", json=body or {}, timeout=60)
        assert response.status_code == expect, response.text
        return response.json()

    def get(self, path: str) -> dict:
        response = self.session.get(f"{self.base}{path}", timeout=60)
        assert response.status_code == 200, response.text
        return response.json()


def customer_with_card(
    base: str, email: str = "ada@mail.example.com", card_number: str = CARD_SUCCEEDS
) -> tuple[Api, str, str]:
    """Registers over HTTP and adds `card_number` through the sandbox's card
    page: (the customer's client, their id, the card's id)."""
    registered = Api(base).post(
        "/api/v1/auth/customer/register",
        {
            "email": email,
            "password": PASSWORD,
            "first_name": "Ada",
            "last_name": "Obi",
            "phone": "+2348012345678",
        },
        expect=201,
    )["data"]
    customer = Api(base, registered["access"])
    customer_id = registered["customer_id"]
    started = customer.post(
        "/api/v1/payment-methods/initialize-card",
        {"customer_id": customer_id, "callback_url": CALLBACK_URL},
    )
    form = requests.post(
        f"{base}{urlsplit(started['authorization_url']).path}",
        data={"card_number": card_number},
        allow_redirects=False,
        timeout=60,
    )
    assert form.status_code == 302, form.text
    reference = parse_qs(urlsplit(form.headers["Location"]).query)["reference"][0]
    card = customer.post(
        "/api/v1/payment-methods/verify-card",
        {"customer_id": customer_id, "reference": reference},
    )["data"]["id"]
    return customer, customer_id, card


def bought_over_http(shop: Api, customer: Api, merchant, card: str) -> dict:
    """The order the end-to-end tests buy over HTTP: a checkout session of
    250,000 kobo (ORD-1001) opened with the merchant's key, completed by the
    customer in 3 monthly installments on `card`; the plan."""
    token = shop.post(
        "/api/v1/checkout/sessions",
        {
            "merchant_id": merchant.public_id,
            "amount": 250_000,
            "currency": "NGN",
            "title": "Samsung Galaxy A55",
            "order_reference": "ORD-1001",
            "customer_email": "ada@mail.example.com",
        },
        expect=201,
    )["data"]["session_token"]
    return customer.post(
        f"/api/v1/checkout/sessions/{token}/complete",
        {
            "schedule_type": "monthly",
            "installment_count": 3,
            "payment_method_id": card,
            "terms_accepted": True,
        },
        expect=201,
    )["data"]


def signed(received) -> bool:
    """The receiver's own check, by the rule of docs/webhooks.md."""
    expected = hmac.new(SECRET.encode(), received.body, hashlib.sha256).hexdigest()
    timestamp = received.headers["x-service-timestamp"]
    stamped = hmac.new(
        SECRET.encode(), f"{timestamp}.".encode() + received.body, hashlib.sha256
    ).hexdigest()
    return hmac.compare_digest(
        received.headers["x-service-signature"], expected
    ) and received.headers["x-service-signature-timestamped"] == (
        f"t={timestamp},v1={stamped}"
    )
