import uuid
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import pytest
from rest_framework.test import APIClient

from payments.models import Customer, SandboxTransaction

from ..conftest import customer_jwt
from ..factories import PASSWORD

SESSIONS_URL = "/api/v1/checkout/sessions"
PREVIEW_URL = "/api/v1/checkout/preview"


def session_body(merchant, **overrides) -> dict:
    return {
        "merchant_id": merchant.public_id,
        "amount": 250_000,
        "currency": "NGN",
        "title": "Samsung Galaxy A55",
        "order_reference": "ORD-1001",
        "customer_email": "ada@mail.example.com",
    } | overrides


def key_header(key) -> dict:
    return {"HTTP_IDEMPOTENCY_KEY": str(key)}


@pytest.fixture
def new_key():
    return lambda: str(uuid.uuid4())


@pytest.fixture
def create_session(api):
    """POST endpoint 2 as `owner` (a MerchantWithKey), optionally with a key."""

    def create(owner, key=None, **overrides):
        headers = {**owner.headers, **(key_header(key) if key else {})}
        return api.post(
            SESSIONS_URL,
            session_body(owner.merchant, **overrides),
            format="json",
            **headers,
        )

    return create


# --- completion: merchant and customer over HTTP, on the sandbox ----------------

CARD_OK = "4084084084084081"
CARD_POOR = "4084080000000409"
CARD_DECLINED = "4000000000000002"
CALLBACK_URL = "https://shop.example.com/cards/done"


def complete_url(token: str) -> str:
    return f"{SESSIONS_URL}/{token}/complete"


@dataclass
class Shopper:
    """A customer signed in over the API, with their own client."""

    customer_id: str
    client: APIClient
    access: str  # the customer JWT the client sends

    def post(self, path, body=None):
        return self.client.post(path, body or {}, format="json")

    def get(self, path):
        return self.client.get(path)

    @property
    def customer(self):
        return Customer.objects.get(public_id=self.customer_id)

    def sign_in_again(self) -> None:
        """A fresh access token (they last 15 minutes), e.g. after time travel."""
        self.access = customer_jwt(self.customer)
        self.client.credentials(HTTP_AUTHORIZATION=f"Bearer {self.access}")


def register(email: str, password: str = PASSWORD) -> Shopper:
    client = APIClient()
    response = client.post(
        "/api/v1/auth/customer/register",
        {
            "email": email,
            "password": password,
            "first_name": "Ada",
            "last_name": "Obi",
            "phone": "+2348012345678",
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    data = response.json()["data"]
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {data['access']}")
    return Shopper(
        customer_id=data["customer_id"], client=client, access=data["access"]
    )


def add_card(shopper: Shopper, card_number: str = CARD_OK, *, livemode=True) -> str:
    """The redirect flow: initialize, the sandbox's card form, verify; a test
    card (for test checkouts) with `livemode=False`."""
    started = shopper.post(
        "/api/v1/payment-methods/initialize-card",
        {
            "customer_id": shopper.customer_id,
            "callback_url": CALLBACK_URL,
            "livemode": livemode,
        },
    )
    assert started.status_code == 200, started.content
    form = APIClient().post(
        urlsplit(started.json()["authorization_url"]).path,
        {"card_number": card_number},
    )
    assert form.status_code == 302, form.content
    assert form["Location"].startswith(CALLBACK_URL)
    reference = parse_qs(urlsplit(form["Location"]).query)["reference"][0]
    verified = shopper.post(
        "/api/v1/payment-methods/verify-card",
        {"customer_id": shopper.customer_id, "reference": reference},
    )
    assert verified.status_code == 200, verified.content
    return verified.json()["data"]["id"]


def complete(shopper: Shopper, token: str, method_id: str, **overrides):
    return shopper.post(
        complete_url(token),
        {
            "schedule_type": "monthly",
            "installment_count": 3,
            "payment_method_id": method_id,
            "terms_accepted": True,
        }
        | overrides,
    )


def open_session(owner, **overrides) -> str:
    response = APIClient().post(
        SESSIONS_URL,
        session_body(owner.merchant, **overrides),
        format="json",
        **owner.headers,
    )
    assert response.status_code == 201, response.content
    return response.json()["data"]["session_token"]


def deposit_charges():
    """Charges the sandbox was asked to make on saved methods (not card set-ups)."""
    return SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.AUTHORIZATION_CHARGE
    )


@pytest.fixture
def shopper(db):
    return register("ada@mail.example.com")


@pytest.fixture
def card(shopper):
    return add_card(shopper)
