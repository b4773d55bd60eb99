"""Endpoints 7 and 8: key rotation and the revoked-key history (DESIGN §4, §5)."""

import pytest
from django.db import connection

from merchants.models import ApiKey

from ..conftest import bearer, customer_jwt, make_merchant_with_key, merchant_jwt

pytestmark = pytest.mark.django_db


def rotate_url(merchant):
    return f"/api/v1/merchant/{merchant.public_id}/rotate-api-key"


def history_url(merchant):
    return f"/api/v1/merchant/{merchant.public_id}/api-key/history"


def test_first_key_is_generated_with_the_merchant_jwt(api, merchant_active):
    response = api.post(
        rotate_url(merchant_active),
        {"name": "backend"},
        format="json",
        **bearer(merchant_jwt(merchant_active)),
    )

    assert response.status_code == 201
    key = response.json()["data"]["apiKey"]
    assert key.startswith("service_live_sk_")
    assert len(key) > len("service_live_sk_") + 32
    history = api.get(history_url(merchant_active), **bearer(key))
    assert history.status_code == 200


def test_rotate_revokes_previous_key_immediately(api, merchant_with_key):
    old = merchant_with_key.api_key
    response = api.post(
        rotate_url(merchant_with_key.merchant), {}, format="json", **bearer(old)
    )
    new = response.json()["data"]["apiKey"]

    assert response.status_code == 201
    assert new != old
    refused = api.get(history_url(merchant_with_key.merchant), **bearer(old))
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"].startswith("Bearer")
    assert (
        api.get(history_url(merchant_with_key.merchant), **bearer(new)).status_code
        == 200
    )
    assert (
        ApiKey.objects.filter(
            merchant=merchant_with_key.merchant, revoked_at__isnull=True
        ).count()
        == 1
    )


def test_rotate_with_api_access_disabled_is_403(api, merchant_approved):
    response = api.post(
        rotate_url(merchant_approved),
        {},
        format="json",
        **bearer(merchant_jwt(merchant_approved)),
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "api_access_disabled"
    assert not ApiKey.objects.exists()


def test_rotate_for_pending_merchant_is_403(api, merchant_pending):
    response = api.post(
        rotate_url(merchant_pending),
        {},
        format="json",
        **bearer(merchant_jwt(merchant_pending)),
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_not_active"


def test_key_of_merchant_whose_access_was_disabled_is_403(api, merchant_with_key):
    merchant = merchant_with_key.merchant
    merchant.api_access_enabled = False
    merchant.save()

    response = api.get(history_url(merchant), **merchant_with_key.headers)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "api_access_disabled"


def test_unknown_merchant_id_is_404_and_another_merchants_id_is_403(
    api, merchant_with_key, other_merchant_with_key
):
    unknown = api.get(
        "/api/v1/merchant/mer_doesnotexist000000000/api-key/history",
        **merchant_with_key.headers,
    )
    other = api.get(
        history_url(other_merchant_with_key.merchant), **merchant_with_key.headers
    )
    rotate_other = api.post(
        rotate_url(other_merchant_with_key.merchant),
        {},
        format="json",
        **merchant_with_key.headers,
    )

    assert unknown.status_code == 404
    assert unknown.json()["error"]["code"] == "merchant_not_found"
    assert other.status_code == 403
    assert other.json()["error"]["code"] == "merchant_mismatch"
    assert rotate_other.status_code == 403
    # The other merchant's key still works: nothing was rotated.
    assert (
        api.get(
            history_url(other_merchant_with_key.merchant),
            **other_merchant_with_key.headers,
        ).status_code
        == 200
    )


@pytest.mark.parametrize(
    "header",
    [
        None,
        "Bearer",
        "Bearer service_live_sk_not-a-real-key",
        "Basic dXNlcjpwYXNz",
        "Bearer not.a.jwt",
    ],
)
def test_missing_or_invalid_credential_is_401(api, merchant_with_key, header):
    headers = {"HTTP_AUTHORIZATION": header} if header else {}
    response = api.get(history_url(merchant_with_key.merchant), **headers)

    assert response.status_code == 401
    assert response.json()["detail"]


def test_unknown_merchant_with_invalid_key_is_still_401_first(api):
    response = api.get(
        "/api/v1/merchant/mer_unknown/api-key/history",
        **bearer("service_live_sk_wrong"),
    )
    assert response.status_code == 401


def test_customer_jwt_is_refused_on_a_merchant_endpoint(api, merchant_active, customer):
    response = api.post(
        rotate_url(merchant_active), {}, format="json", **bearer(customer_jwt(customer))
    )

    assert response.status_code == 403
    assert "merchant JWT" in response.json()["detail"]
    assert not ApiKey.objects.exists()


def test_history_lists_revoked_keys_with_masked_prefixes(api, merchant_active):
    jwt = bearer(merchant_jwt(merchant_active))
    first = api.post(
        rotate_url(merchant_active), {"name": "first"}, format="json", **jwt
    ).json()["data"]["apiKey"]
    assert api.get(history_url(merchant_active), **jwt).json()["data"] == []
    second = api.post(
        rotate_url(merchant_active), {"name": "second"}, format="json", **jwt
    ).json()["data"]["apiKey"]

    response = api.get(history_url(merchant_active), **bearer(second))

    body = response.json()
    assert response.status_code == 200
    assert body["total"] == 1
    [entry] = body["data"]
    assert set(entry) == {
        "name",
        "mode",
        "livemode",
        "prefix",
        "created_at",
        "revoked_at",
    }
    assert (entry["mode"], entry["livemode"]) == ("live", True)
    assert entry["name"] == "first"
    secret = first.removeprefix("service_live_sk_")
    assert entry["prefix"] == f"service_live_sk_{secret[:4]}..."
    assert secret not in str(body)
    assert entry["created_at"].endswith("Z") and entry["revoked_at"].endswith("Z")


def test_history_is_paginated_with_total(api, merchant_with_key):
    key = merchant_with_key.api_key
    for _ in range(3):
        key = api.post(
            rotate_url(merchant_with_key.merchant), {}, format="json", **bearer(key)
        ).json()["data"]["apiKey"]

    page = api.get(
        history_url(merchant_with_key.merchant) + "?limit=2&offset=1", **bearer(key)
    ).json()

    assert page["total"] == 3
    assert len(page["data"]) == 2
    bad = api.get(history_url(merchant_with_key.merchant) + "?limit=0", **bearer(key))
    assert bad.status_code == 400
    assert "limit" in bad.json()["detail"]


def test_rotate_refuses_a_name_of_the_wrong_type(api, merchant_with_key):
    response = api.post(
        rotate_url(merchant_with_key.merchant),
        {"name": 12},
        format="json",
        **merchant_with_key.headers,
    )
    assert response.status_code == 400
    assert "name" in response.json()["errors"]


def _all_text_in_database() -> str:
    chunks = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names():
            cursor.execute(f"SELECT * FROM {connection.ops.quote_name(table)}")
            chunks.extend(repr(row) for row in cursor.fetchall())
    return "\n".join(chunks)


def test_no_api_key_is_stored_in_plaintext_anywhere(api, merchant_active):
    jwt = bearer(merchant_jwt(merchant_active))
    keys = [
        api.post(rotate_url(merchant_active), {}, format="json", **jwt).json()["data"][
            "apiKey"
        ]
        for _ in range(3)
    ]
    api.get(history_url(merchant_active), **bearer(keys[-1]))

    everything = _all_text_in_database()
    for key in keys:
        assert key not in everything
        assert key.removeprefix("service_live_sk_") not in everything
    assert ApiKey.objects.count() == 3


def test_one_live_key_per_merchant_is_a_database_rule(merchant_with_key):
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        ApiKey.objects.create(
            merchant=merchant_with_key.merchant,
            key_hash="0" * 64,
            display_prefix="abcd",
        )


def test_keys_of_two_merchants_are_independent(api):
    first = make_merchant_with_key()
    second = make_merchant_with_key()
    api.post(rotate_url(first.merchant), {}, format="json", **first.headers)

    assert api.get(history_url(second.merchant), **second.headers).status_code == 200
