"""Staff can read sessions and idempotency records; nobody edits them there."""

import pytest

pytestmark = pytest.mark.django_db


def test_staff_see_sessions_and_keys_read_only(
    admin_client, create_session, merchant_with_key, new_key
):
    token = create_session(merchant_with_key, key=new_key()).json()["data"][
        "session_token"
    ]

    sessions = admin_client.get("/admin/checkout/checkoutsession/")
    records = admin_client.get("/admin/checkout/idempotencyrecord/")
    add = admin_client.get("/admin/checkout/checkoutsession/add/")

    assert sessions.status_code == 200
    assert token in sessions.content.decode()
    assert records.status_code == 200
    assert add.status_code == 403
