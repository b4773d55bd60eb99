"""Key rotation and registration under concurrent requests (PostgreSQL)."""

import pytest
from rest_framework.test import APIClient

from merchants.models import ApiKey, Merchant

from ..concurrency import run_concurrently
from ..conftest import bearer, merchant_jwt
from ..factories import MerchantFactory

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_concurrent_rotations_leave_exactly_one_live_key():
    merchant = MerchantFactory(status="active", api_access_enabled=True)
    jwt = bearer(merchant_jwt(merchant))
    url = f"/api/v1/merchant/{merchant.public_id}/rotate-api-key"

    results = run_concurrently(
        lambda: APIClient().post(url, {}, format="json", **jwt), count=8
    )

    assert [r.status_code for r in results] == [201] * 8
    keys = {r.json()["data"]["apiKey"] for r in results}
    assert len(keys) == 8
    assert ApiKey.objects.filter(merchant=merchant).count() == 8
    live = ApiKey.objects.filter(merchant=merchant, revoked_at__isnull=True)
    assert live.count() == 1
    history = APIClient().get(
        f"/api/v1/merchant/{merchant.public_id}/api-key/history", **jwt
    )
    assert history.json()["total"] == 7
    working = [
        key
        for key in keys
        if APIClient()
        .get(f"/api/v1/merchant/{merchant.public_id}/api-key/history", **bearer(key))
        .status_code
        == 200
    ]
    assert len(working) == 1


def test_concurrent_registrations_with_one_email_create_one_merchant(settings):
    # The race, not the sign-up throttle (tests/merchants/test_signup_abuse.py).
    settings.SIGNUP_RATE_LIMIT_PER_ADDRESS = "100/hour"
    body = {
        "email": "race@shop.ng",
        "password": "Sturdy-Passw0rd-42",
        "business_name": "Race Shop",
        "business_url": "https://race.ng",
    }

    results = run_concurrently(
        lambda: APIClient().post("/api/v1/auth/merchant/register", body, format="json"),
        count=8,
    )

    codes = sorted(r.status_code for r in results)
    assert codes == [201] + [409] * 7
    assert Merchant.objects.filter(email="race@shop.ng").count() == 1
