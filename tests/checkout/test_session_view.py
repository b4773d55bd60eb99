"""`GET /api/v1/checkout/sessions/<token>`: the public view for the widget."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from checkout.models import CheckoutSession

from ..conftest import bearer

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def session_token(create_session, merchant_with_key):
    with time_machine.travel(NOW, tick=False):
        return create_session(merchant_with_key).json()["data"]["session_token"]


def view(api, token, **headers):
    return api.get(f"/api/v1/checkout/sessions/{token}", **headers)


def test_anyone_with_the_token_sees_the_public_fields_only(
    api, session_token, merchant_with_key
):
    with time_machine.travel(NOW + timedelta(minutes=5), tick=False):
        response = view(api, session_token)

    assert response.status_code == 200
    assert response.json() == {
        "ok": True,
        "data": {
            "title": "Samsung Galaxy A55",
            "amount": 250_000,
            "currency": "NGN",
            "merchant_name": merchant_with_key.merchant.business_name,
            "livemode": True,
            "status": "open",
            "expires_at": "2026-03-01T09:30:00.000Z",
        },
    }


def test_view_leaks_no_customer_email_merchant_secret_or_order_reference(
    api, session_token, merchant_with_key
):
    text = view(api, session_token).content.decode()

    assert "ada@mail.example.com" not in text
    assert "ORD-1001" not in text
    assert merchant_with_key.merchant.email not in text
    assert merchant_with_key.api_key not in text


def test_session_reads_expired_from_its_30th_minute(api, session_token):
    with time_machine.travel(NOW + timedelta(minutes=29, seconds=59), tick=False):
        assert view(api, session_token).json()["data"]["status"] == "open"
    with time_machine.travel(NOW + timedelta(minutes=30), tick=False):
        assert view(api, session_token).json()["data"]["status"] == "expired"


def test_completed_session_reads_completed_even_after_expiry(api, session_token):
    CheckoutSession.objects.update(status=CheckoutSession.Status.COMPLETED)

    with time_machine.travel(NOW + timedelta(days=2), tick=False):
        assert view(api, session_token).json()["data"]["status"] == "completed"


@pytest.mark.parametrize(
    "token",
    [
        "fcs_doesnotexist",
        "nothing",
        "fcs_" + "A" * 22,
        "%00",
        "fcs_%00",
        "fcs_" + "a" * 500,
        "fcs_abc%0A",
    ],
)
def test_unknown_token_is_404(api, session_token, token):
    response = view(api, token)

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_needs_no_credential_and_ignores_a_bad_one(api, session_token):
    assert view(api, session_token).status_code == 200
    assert view(api, session_token, **bearer("garbage")).status_code == 200


def test_trailing_slash_is_served_too(api, session_token):
    assert view(api, session_token + "/").status_code == 200
