"""The sandbox endpoints beside a real processor (DESIGN section 21,
docs/test-mode.md): every route under /api/v1/sandbox/, taken from the URL
resolver, refuses a live key (403 `live_mode_forbidden`) where PROCESSOR is
not the sandbox, takes a test key there, and takes both on a sandbox
deployment; none of it reaches Paystack."""

import re

import pytest
import responses
from django.test import override_settings
from rest_framework.test import APIClient

from ..api_contract.routes import api_views
from ..conftest import bearer, make_merchant_with_key, with_test_key
from .conftest import make_active_plan

pytestmark = pytest.mark.django_db

SANDBOX_ROUTES = sorted(
    path for path in api_views() if path.startswith("/api/v1/sandbox/")
)
# An id of the right shape that names nothing: the answer is the credential's.
UNKNOWN_ID = "zz_doesnotexist000000000"


def test_the_sandbox_routes_are_found():
    # The five of today; a new one is covered by the tests below by itself.
    assert len(SANDBOX_ROUTES) >= 5
    assert all(re.search(r"\{\w+\}", path) for path in SANDBOX_ROUTES)


def _url(path: str) -> str:
    return re.sub(r"\{\w+\}", UNKNOWN_ID, path)


@pytest.fixture
def keys(db):
    owner = make_merchant_with_key()
    return {"live": owner.api_key, "test": with_test_key(owner).api_key}


def _post(path: str, key: str):
    return APIClient().post(_url(path), {}, format="json", **bearer(key))


@pytest.mark.parametrize("path", SANDBOX_ROUTES)
@override_settings(PROCESSOR="paystack")
@responses.activate
def test_a_live_key_is_refused_beside_a_real_processor(keys, path):
    response = _post(path, keys["live"])

    assert response.status_code == 403, response.content
    error = response.json()["error"]
    assert error["code"] == "live_mode_forbidden"
    assert "test key" in error["message"]
    assert len(responses.calls) == 0  # nothing reached Paystack


@pytest.mark.parametrize("path", SANDBOX_ROUTES)
@override_settings(PROCESSOR="paystack")
@responses.activate
def test_a_test_key_is_taken_beside_a_real_processor(keys, path):
    response = _post(path, keys["test"])

    # Past the key's check: the unknown id is the answer (or the body's).
    assert response.status_code in (400, 404), response.content
    assert len(responses.calls) == 0


@pytest.mark.parametrize("path", SANDBOX_ROUTES)
@pytest.mark.parametrize("side", ["live", "test"])
def test_both_keys_are_taken_on_a_sandbox_deployment(keys, path, side, settings):
    settings.PROCESSOR = "sandbox"

    response = _post(path, keys[side])

    assert response.status_code in (400, 404), response.content


@pytest.mark.parametrize("path", SANDBOX_ROUTES)
@override_settings(PROCESSOR="paystack")
def test_no_key_is_still_401_first(path):
    assert APIClient().post(_url(path), {}, format="json").status_code == 401


@responses.activate
def test_a_test_key_reaches_its_test_plan_beside_a_real_processor(settings):
    owner = make_merchant_with_key()
    # The account's id with its test key: a test plan on the test side.
    tester = with_test_key(owner)
    test_key = tester.api_key
    setup = make_active_plan(tester)
    assert setup.plan.merchant.livemode is False
    settings.PROCESSOR = "paystack"

    response = APIClient().post(
        f"/api/v1/sandbox/payment-plans/{setup.plan.public_id}/collect-next",
        **bearer(test_key),
    )

    assert response.status_code == 200, response.content
    plan = response.json()["data"]
    assert plan["id"] == setup.plan.public_id
    assert plan["installments"][0]["attempts"] == 1
    # Paid at the sandbox, with the customer's test card: nothing asked of
    # Paystack.
    assert plan["installments"][0]["status"] == "paid"
    assert (plan["livemode"], plan["merchant_id"]) == (False, owner.merchant.public_id)
    assert len(responses.calls) == 0
    # The live key does not see the test plan, on the sandbox either.
    settings.PROCESSOR = "sandbox"
    unknown = APIClient().post(
        f"/api/v1/sandbox/payment-plans/{setup.plan.public_id}/collect-next",
        **owner.headers,
    )
    assert unknown.status_code == 404
