"""Test keys through the API (DESIGN section 21, docs/test-mode.md): `mode`
on `rotate-api-key`, what a test key may rotate, a pending account's test key,
and the history of both sides' keys."""

import pytest

from merchants import selectors as merchant_selectors
from merchants.models import ApiKey, Merchant

from ..conftest import bearer, merchant_jwt

pytestmark = pytest.mark.django_db

TEST_PREFIX = "service_test_sk_"
LIVE_PREFIX = "service_live_sk_"


def rotate_url(merchant):
    return f"/api/v1/merchant/{merchant.public_id}/rotate-api-key"


def history_url(merchant):
    return f"/api/v1/merchant/{merchant.public_id}/api-key/history"


def rotate(api, merchant, body, credential):
    return api.post(rotate_url(merchant), body, format="json", **bearer(credential))


def test_mode_test_makes_a_test_key_on_the_test_side(api, merchant_with_key):
    merchant = merchant_with_key.merchant

    response = rotate(api, merchant, {"mode": "test"}, merchant_with_key.api_key)

    assert response.status_code == 201, response.content
    data = response.json()["data"]
    assert data["apiKey"].startswith(TEST_PREFIX)
    assert (data["mode"], data["livemode"]) == ("test", False)
    side = merchant_selectors.test_side_of(merchant)
    assert ApiKey.objects.get(merchant=side, revoked_at__isnull=True).livemode is False
    # The live key in use is untouched: each side has its own.
    assert (
        api.get(history_url(merchant), **merchant_with_key.headers).status_code == 200
    )


def test_mode_is_live_by_default(api, merchant_active):
    response = rotate(api, merchant_active, {}, merchant_jwt(merchant_active))

    assert response.status_code == 201
    data = response.json()["data"]
    assert data["apiKey"].startswith(LIVE_PREFIX)
    assert (data["mode"], data["livemode"]) == ("live", True)


@pytest.mark.parametrize(
    "mode", ["TEST", "sandbox", "", None, True, 1, ["test"], {"mode": "test"}]
)
def test_mode_is_a_strict_choice(api, merchant_active, mode):
    response = rotate(
        api, merchant_active, {"mode": mode}, merchant_jwt(merchant_active)
    )

    assert response.status_code == 400, response.content
    assert "mode" in response.json()["errors"]
    assert not ApiKey.objects.exists()


def test_a_test_key_may_not_make_a_live_key(api, merchant_with_key):
    merchant = merchant_with_key.merchant
    test_key = rotate(
        api, merchant, {"mode": "test"}, merchant_with_key.api_key
    ).json()["data"]["apiKey"]

    for body in ({"mode": "live"}, {}):
        refused = rotate(api, merchant, body, test_key)
        assert refused.status_code == 403
        error = refused.json()["error"]
        assert error["code"] == "live_mode_forbidden"
        assert "test key" in error["message"]
    # Nothing changed: the live key still works, the test key too.
    assert (
        api.get(history_url(merchant), **merchant_with_key.headers).status_code == 200
    )
    assert api.get(history_url(merchant), **bearer(test_key)).status_code == 200


def test_a_test_key_rotates_test_keys(api, merchant_with_key):
    merchant = merchant_with_key.merchant
    first = rotate(api, merchant, {"mode": "test"}, merchant_with_key.api_key)
    first_key = first.json()["data"]["apiKey"]

    second = rotate(api, merchant, {"mode": "test", "name": "ci"}, first_key)

    assert second.status_code == 201
    assert second.json()["data"]["apiKey"].startswith(TEST_PREFIX)
    assert api.get(history_url(merchant), **bearer(first_key)).status_code == 401


def test_a_pending_account_gets_a_test_key_with_its_jwt(api, merchant_pending):
    jwt = merchant_jwt(merchant_pending)

    made = rotate(api, merchant_pending, {"mode": "test", "name": "dev"}, jwt)
    live = rotate(api, merchant_pending, {"mode": "live"}, jwt)

    assert made.status_code == 201, made.content
    assert made.json()["data"]["apiKey"].startswith(TEST_PREFIX)
    assert live.status_code == 403
    assert live.json()["error"]["code"] == "merchant_not_active"
    # The test key works while the account waits for approval.
    key = made.json()["data"]["apiKey"]
    assert api.get(history_url(merchant_pending), **bearer(key)).status_code == 200


def test_an_account_without_api_access_gets_a_test_key(api, merchant_approved):
    jwt = merchant_jwt(merchant_approved)

    assert rotate(api, merchant_approved, {"mode": "test"}, jwt).status_code == 201
    live = rotate(api, merchant_approved, {"mode": "live"}, jwt)
    assert live.json()["error"]["code"] == "api_access_disabled"


def test_a_suspended_account_gets_no_test_key(api, merchant_pending):
    merchant_pending.status = Merchant.Status.SUSPENDED
    merchant_pending.save()

    response = rotate(
        api, merchant_pending, {"mode": "test"}, merchant_jwt(merchant_pending)
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_not_active"
    assert not ApiKey.objects.exists()


def test_history_lists_both_sides_revoked_keys_with_their_mode(api, merchant_active):
    jwt = merchant_jwt(merchant_active)
    for mode in ("live", "test", "live", "test"):
        assert rotate(api, merchant_active, {"mode": mode}, jwt).status_code == 201

    for credential in (jwt, api_key_of_side(api, merchant_active, jwt)):
        body = api.get(history_url(merchant_active), **bearer(credential)).json()
        modes = sorted(entry["mode"] for entry in body["data"])
        prefixes = {entry["mode"]: entry["prefix"][:16] for entry in body["data"]}
        assert modes[:2] == ["live", "test"] and body["total"] == len(modes)
        assert prefixes == {"live": LIVE_PREFIX, "test": TEST_PREFIX}
        assert all(
            entry["livemode"] == (entry["mode"] == "live") for entry in body["data"]
        )


def api_key_of_side(api, merchant, jwt) -> str:
    """A new test key (the test side's previous one joins the history)."""
    return rotate(api, merchant, {"mode": "test"}, jwt).json()["data"]["apiKey"]
