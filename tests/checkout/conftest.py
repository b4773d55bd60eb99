import uuid

import pytest

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
