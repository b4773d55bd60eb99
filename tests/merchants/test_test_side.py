"""An account's test side (DESIGN section 21, docs/test-mode.md): test keys
beside live keys, the test side made once, a test key acting on it under the
account's id, and the settings each side has of its own."""

import threading

import pytest
from django.db import connection

from merchants import account_settings, selectors, services
from merchants.audit.models import AuditEntry
from merchants.models import ApiKey, Merchant
from tests.factories import MerchantFactory

from ..conftest import bearer, merchant_jwt

pytestmark = pytest.mark.django_db


def settings_url(merchant):
    return f"/api/v1/merchant/{merchant.public_id}/settings"


def test_a_pending_merchant_gets_a_test_key_and_no_live_one():
    pending = MerchantFactory()

    key, plaintext = services.api_key_rotate(merchant=pending, mode="test")

    assert plaintext.startswith("service_test_sk_")
    assert key.masked_prefix == f"service_test_sk_{key.display_prefix}..."
    assert key.merchant.livemode is False
    assert key.merchant.live_account == pending
    with pytest.raises(Exception) as refused:
        services.api_key_rotate(merchant=pending, mode="live")
    assert refused.value.code == "merchant_not_active"
    assert list(ApiKey.objects.values_list("livemode", flat=True)) == [False]


def test_live_and_test_keys_rotate_each_on_their_own(merchant_active):
    live, _ = services.api_key_rotate(merchant=merchant_active)
    test, _ = services.api_key_rotate(merchant=merchant_active, mode="test")
    test_again, _ = services.api_key_rotate(merchant=merchant_active, mode="test")

    live.refresh_from_db()
    test.refresh_from_db()
    assert live.revoked_at is None  # a test rotation leaves the live key alone
    assert test.revoked_at is not None
    assert test_again.revoked_at is None
    assert [k.mode for k in selectors.account_api_keys(merchant_active)] == [
        "test",
        "test",
        "live",
    ]
    # Each side's rotations are in its own audit log.
    assert AuditEntry.objects.filter(merchant=merchant_active).count() == 1
    assert AuditEntry.objects.filter(merchant=test.merchant).count() == 2


def test_the_test_side_copies_the_account_and_is_never_found_by_id_or_email(
    merchant_active,
):
    side = services.test_side_for(merchant_active)

    assert services.test_side_for(merchant_active) == side
    assert side.public_id == f"{merchant_active.public_id}_test"
    assert side.api_id == merchant_active.public_id
    assert side.account == merchant_active
    assert (side.business_name, side.email) == (
        merchant_active.business_name,
        merchant_active.email,
    )
    assert side.is_active and side.api_access_enabled
    assert selectors.merchant_by_public_id(side.public_id) is None
    assert selectors.merchant_by_email(merchant_active.email) == merchant_active


def test_a_suspended_account_has_no_test_side_either(merchant_active):
    services.test_side_for(merchant_active)
    services.merchant_suspend(merchant=merchant_active)

    with pytest.raises(Exception) as refused:
        services.api_key_rotate(merchant=merchant_active, mode="test")
    assert refused.value.code == "merchant_not_active"


def test_a_test_key_acts_on_the_test_side_under_the_account_id(api, merchant_active):
    _, test_key = services.api_key_rotate(merchant=merchant_active, mode="test")

    response = api.get(
        f"/api/v1/merchant/{merchant_active.public_id}/wallet", **bearer(test_key)
    )

    assert response.status_code == 200, response.content
    side = selectors.test_side_of(merchant_active)
    # The test side's own row is never a name a URL can use.
    response = api.get(f"/api/v1/merchant/{side.public_id}/wallet", **bearer(test_key))
    assert response.status_code == 404


def test_a_suspended_accounts_test_key_is_refused(api, merchant_active):
    """Suspension stops the account's test side too: its test key's requests
    are answered 403, as its live key's are."""
    _, test_key = services.api_key_rotate(merchant=merchant_active, mode="test")
    services.merchant_suspend(merchant=merchant_active)

    response = api.get(
        f"/api/v1/merchant/{merchant_active.public_id}/wallet", **bearer(test_key)
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_not_active"


def test_a_test_key_works_while_the_account_is_pending(api):
    pending = MerchantFactory()
    _, test_key = services.api_key_rotate(merchant=pending, mode="test")

    response = api.get(
        f"/api/v1/merchant/{pending.public_id}/wallet", **bearer(test_key)
    )

    assert response.status_code == 200, response.content


def test_settings_keep_the_test_webhook_apart_and_the_rest_alike(api, merchant_active):
    headers = bearer(merchant_jwt(merchant_active))

    response = api.patch(
        settings_url(merchant_active),
        {
            "test_webhook_url": "https://test.shop.example.com/hooks",
            "test_webhook_secret": "whsec_test_side_secret_0001",
            "max_installments": 4,
        },
        format="json",
        **headers,
    )

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert data["webhook_url"] == ""
    assert data["test_webhook_url"] == "https://test.shop.example.com/hooks"
    assert (data["webhook_secret_set"], data["test_webhook_secret_set"]) == (
        False,
        True,
    )
    side = selectors.test_side_of(merchant_active)
    merchant_active.refresh_from_db()
    assert side.webhook_secret == "whsec_test_side_secret_0001"
    assert merchant_active.webhook_secret == ""
    assert (merchant_active.max_installments, side.max_installments) == (4, 4)

    account_settings.merchant_update_settings(
        merchant=merchant_active, webhook_url="https://live.shop.example.com/hooks"
    )
    side.refresh_from_db()
    assert side.webhook_url == "https://test.shop.example.com/hooks"


def test_a_test_webhook_url_is_checked_like_the_live_one(api, merchant_active):
    response = api.patch(
        settings_url(merchant_active),
        {"test_webhook_url": "https://127.0.0.1/hooks"},
        format="json",
        **bearer(merchant_jwt(merchant_active)),
    )

    assert response.status_code == 400
    assert "test_webhook_url" in response.json()["errors"]
    assert selectors.test_side_of(merchant_active) is None


@pytest.mark.django_db(transaction=True)
def test_two_first_uses_at_once_make_one_test_side():
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL")
    merchant = MerchantFactory(status=Merchant.Status.ACTIVE, api_access_enabled=True)
    barrier = threading.Barrier(2)
    sides, errors = [], []

    def first_use():
        try:
            barrier.wait()
            sides.append(services.test_side_for(merchant).pk)
        except Exception as error:  # reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=first_use) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert errors == []
    assert len(set(sides)) == 1
    assert Merchant.objects.filter(live_account=merchant).count() == 1
