"""`GET`/`PATCH /api/v1/merchant/{id}/settings` and secrets at rest (DESIGN §4, §5)."""

import pytest
from django.core.exceptions import ValidationError
from django.db import connection

from merchants.models import Merchant

from ..conftest import bearer, customer_jwt, merchant_jwt

pytestmark = pytest.mark.django_db


def url(merchant):
    return f"/api/v1/merchant/{merchant.public_id}/settings"


def test_defaults_are_the_designed_plan_configuration(api, merchant_active):
    response = api.get(url(merchant_active), **bearer(merchant_jwt(merchant_active)))

    assert response.status_code == 200
    assert response.json()["data"] == {
        "merchant_id": merchant_active.public_id,
        "livemode": True,
        "webhook_url": "",
        "webhook_secret_set": False,
        "test_webhook_url": "",
        "test_webhook_secret_set": False,
        "payout_bank_code": "",
        "payout_account_number": "",
        "payout_account_name": "",
        "allowed_schedule_types": ["monthly"],
        "min_installments": 1,
        "max_installments": 6,
        "min_deposit_percent": 0,
        "release_rule": "on_deposit",
        "partial_collection_min_percent": None,
        "customer_reschedules_allowed": 1,
        "reschedule_max_days": 14,
        "manual_collection": False,
        "legal_name": "",
        "support_email": "",
        "support_phone": "",
        "fccpc_registration_number": "",
        "refund_policy": "",
        "legal_settings_missing": [
            "legal_name",
            "support_email",
            "support_phone",
            "fccpc_registration_number",
            "refund_policy",
        ],
    }


def test_the_rescheduling_limits_are_settings_within_their_bounds(api, merchant_active):
    jwt = bearer(merchant_jwt(merchant_active))
    response = api.patch(
        url(merchant_active),
        {"customer_reschedules_allowed": 0, "reschedule_max_days": 30},
        format="json",
        **jwt,
    )

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["customer_reschedules_allowed"], data["reschedule_max_days"]) == (
        0,
        30,
    )
    for body in (
        {"customer_reschedules_allowed": -1},
        {"customer_reschedules_allowed": 13},
        {"reschedule_max_days": 0},
        {"reschedule_max_days": 61},
        {"reschedule_max_days": "7"},
    ):
        refused = api.patch(url(merchant_active), body, format="json", **jwt)
        assert refused.status_code == 400, body
        assert set(refused.json()["errors"]) == set(body)
    merchant = Merchant.objects.get(pk=merchant_active.pk)
    assert (merchant.customer_reschedules_allowed, merchant.reschedule_max_days) == (
        0,
        30,
    )


def test_patch_changes_only_what_is_sent_and_never_echoes_the_secret(
    api, merchant_active
):
    jwt = bearer(merchant_jwt(merchant_active))
    response = api.patch(
        url(merchant_active),
        {
            "webhook_url": "https://shop.ng/hooks",
            "webhook_secret": "whsec-0123456789abcdef",
            "allowed_schedule_types": ["weekly", "monthly", "weekly"],
            "max_installments": 12,
            "release_rule": "after_installments:2",
        },
        format="json",
        **jwt,
    )

    data = response.json()["data"]
    assert response.status_code == 200
    assert data["webhook_secret_set"] is True
    assert "whsec-0123456789abcdef" not in response.content.decode()
    assert data["allowed_schedule_types"] == ["monthly", "weekly"]
    assert data["max_installments"] == 12
    assert data["min_installments"] == 1
    merchant = Merchant.objects.get(pk=merchant_active.pk)
    assert merchant.webhook_secret == "whsec-0123456789abcdef"
    assert merchant.release_after_installments == 2


def test_webhook_secret_is_encrypted_at_rest(api, merchant_active):
    api.patch(
        url(merchant_active),
        {"webhook_secret": "whsec-plaintext-never-stored"},
        format="json",
        **bearer(merchant_jwt(merchant_active)),
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT webhook_secret FROM merchants_merchant WHERE id = %s",
            [merchant_active.pk],
        )
        [stored] = cursor.fetchone()

    assert stored
    assert "whsec-plaintext-never-stored" not in stored


@pytest.mark.parametrize(
    "body, field",
    [
        ({"webhook_url": "http://shop.ng/hooks"}, "webhook_url"),
        ({"webhook_url": "not a url"}, "webhook_url"),
        ({"webhook_secret": "short"}, "webhook_secret"),
        ({"allowed_schedule_types": []}, "allowed_schedule_types"),
        ({"allowed_schedule_types": ["daily"]}, "allowed_schedule_types"),
        ({"allowed_schedule_types": "monthly"}, "allowed_schedule_types"),
        ({"max_installments": 13}, "max_installments"),
        ({"min_installments": 0}, "min_installments"),
        ({"min_installments": 7}, "min_installments"),
        ({"min_deposit_percent": 95}, "min_deposit_percent"),
        ({"min_deposit_percent": "10"}, "min_deposit_percent"),
        ({"release_rule": "after_installments:0"}, "release_rule"),
        ({"release_rule": "whenever"}, "release_rule"),
        ({"payout_account_name": "Me"}, "payout_account_name"),
    ],
)
def test_invalid_settings_are_400_and_change_nothing(api, merchant_active, body, field):
    response = api.patch(
        url(merchant_active),
        body,
        format="json",
        **bearer(merchant_jwt(merchant_active)),
    )

    assert response.status_code == 400
    assert field in response.json()["errors"]
    fresh = Merchant.objects.get(pk=merchant_active.pk)
    assert (fresh.min_installments, fresh.max_installments) == (1, 6)
    assert fresh.release_rule == "on_deposit"
    assert fresh.webhook_url == ""


def test_settings_need_a_merchant_jwt(api, merchant_with_key, customer):
    merchant = merchant_with_key.merchant
    assert api.get(url(merchant)).status_code == 401
    assert api.get(url(merchant), **merchant_with_key.headers).status_code == 403
    assert api.get(url(merchant), **bearer(customer_jwt(customer))).status_code == 403


def test_another_merchants_settings_are_403(api, merchant_active, merchant_with_key):
    response = api.get(
        url(merchant_with_key.merchant), **bearer(merchant_jwt(merchant_active))
    )
    assert response.status_code == 403


def test_model_clean_refuses_bad_configuration_in_admin_forms(merchant_active):
    from django.core.exceptions import ValidationError

    merchant_active.release_rule = "after_installments:13"
    merchant_active.allowed_schedule_types = ["yearly"]
    with pytest.raises(ValidationError) as error:
        merchant_active.full_clean()
    assert {"release_rule", "allowed_schedule_types"} <= set(error.value.message_dict)


# The webhook URL: saving refuses what sending refuses (issue 14) -----------------


@pytest.fixture
def developer_settings(settings):
    """What DEBUG turns on: plain http and private networks for webhooks."""
    settings.DEBUG = True
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True


def patch_webhook_url(api, merchant, webhook_url):
    return api.patch(
        url(merchant),
        {"webhook_url": webhook_url},
        format="json",
        **bearer(merchant_jwt(merchant)),
    )


def assert_refused_and_unchanged(response, merchant, message):
    assert response.status_code == 400
    assert response.json()["errors"] == {"webhook_url": [message]}
    assert Merchant.objects.get(pk=merchant.pk).webhook_url == ""


@pytest.mark.parametrize("flag", [False, True])
def test_a_non_http_webhook_url_is_refused(api, merchant_active, settings, flag):
    settings.DEBUG = settings.WEBHOOK_ALLOW_HTTP = flag

    response = patch_webhook_url(api, merchant_active, "ftp://shop.ng/hooks")

    expected = "http or https" if flag else "https"
    assert_refused_and_unchanged(
        response, merchant_active, f"The webhook URL must use {expected}."
    )


@pytest.mark.parametrize(
    "webhook_url",
    [
        "http://127.0.0.1/hooks",
        "https://127.0.0.1/hooks",
        "https://10.0.0.1/hooks",
        "https://[::1]:8443/hooks",
        "https://localhost/hooks",
    ],
)
def test_a_private_webhook_url_is_refused_when_private_networks_are(
    api, merchant_active, settings, webhook_url
):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = False

    response = patch_webhook_url(api, merchant_active, webhook_url)

    assert response.status_code == 400
    [message] = response.json()["errors"]["webhook_url"]
    assert message.startswith("The webhook URL is not allowed: ")
    assert "a loopback, private, link-local or reserved address" in message
    assert Merchant.objects.get(pk=merchant_active.pk).webhook_url == ""


@pytest.mark.parametrize(
    ("webhook_url", "host"),
    [
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("https://[fe80::1]/hooks", "fe80::1"),
        (
            "https://[::ffff:169.254.169.254]/latest/meta-data/",
            "::ffff:169.254.169.254",
        ),
        ("https://0.0.0.0/hooks", "0.0.0.0"),
    ],
)
def test_a_link_local_webhook_url_is_refused_even_for_a_developer(
    api, merchant_active, developer_settings, webhook_url, host
):
    response = patch_webhook_url(api, merchant_active, webhook_url)

    assert response.status_code == 400
    [message] = response.json()["errors"]["webhook_url"]
    assert message.startswith(f"The webhook URL is not allowed: {host} resolves to ")
    assert Merchant.objects.get(pk=merchant_active.pk).webhook_url == ""


def test_a_developer_may_save_a_receiver_on_their_machine(
    api, merchant_active, developer_settings
):
    response = patch_webhook_url(api, merchant_active, "http://127.0.0.1:8000/hooks")

    assert response.status_code == 200
    assert response.json()["data"]["webhook_url"] == "http://127.0.0.1:8000/hooks"


def test_an_empty_webhook_url_still_clears_it(api, merchant_active):
    Merchant.objects.filter(pk=merchant_active.pk).update(
        webhook_url="https://shop.ng/hooks"
    )

    response = patch_webhook_url(api, merchant_active, "")

    assert response.status_code == 200
    assert Merchant.objects.get(pk=merchant_active.pk).webhook_url == ""


def test_partial_collection_is_off_by_default_and_set_from_1_to_99(
    api, merchant_active
):
    jwt = bearer(merchant_jwt(merchant_active))

    on = api.patch(
        url(merchant_active),
        {"partial_collection_min_percent": 40},
        format="json",
        **jwt,
    )
    assert on.status_code == 200, on.content
    assert on.json()["data"]["partial_collection_min_percent"] == 40
    off = api.patch(
        url(merchant_active),
        {"partial_collection_min_percent": None},
        format="json",
        **jwt,
    )
    assert off.json()["data"]["partial_collection_min_percent"] is None
    assert (
        Merchant.objects.get(pk=merchant_active.pk).partial_collection_min_percent
        is None
    )


@pytest.mark.parametrize("value", [0, 100, -5, "50", 12.5, True])
def test_a_partial_collection_percent_outside_1_to_99_is_a_400(
    api, merchant_active, value
):
    response = api.patch(
        url(merchant_active),
        {"partial_collection_min_percent": value},
        format="json",
        **bearer(merchant_jwt(merchant_active)),
    )

    assert response.status_code == 400
    assert "partial_collection_min_percent" in response.content.decode()
    assert (
        Merchant.objects.get(pk=merchant_active.pk).partial_collection_min_percent
        is None
    )


LEGAL = {
    "legal_name": "Ada Gadgets Limited",
    "support_email": "help@adagadgets.example",
    "support_phone": "+234 (803) 123-4567",
    "fccpc_registration_number": "FCCPC/DL/2025/0042",
    "refund_policy": "Return it unopened within 7 days for a full refund.",
}


def test_the_key_facts_details_are_settings(api, merchant_active):
    jwt = bearer(merchant_jwt(merchant_active))

    response = api.patch(url(merchant_active), LEGAL, format="json", **jwt)

    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert {name: data[name] for name in LEGAL} == LEGAL
    assert data["legal_settings_missing"] == []
    cleared = api.patch(
        url(merchant_active), {"refund_policy": ""}, format="json", **jwt
    )
    assert cleared.json()["data"]["legal_settings_missing"] == ["refund_policy"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("legal_name", "Ada Gadgets\nLimited"),
        ("legal_name", "x" * 201),
        ("fccpc_registration_number", "FCCPC\t42"),
        ("fccpc_registration_number", "x" * 61),
        ("refund_policy", "Returns:\r\nwithin 7 days"),
        ("refund_policy", "Returns\u2028within 7 days"),
        ("refund_policy", "x" * 2001),
        ("support_email", "not an e-mail"),
        ("support_phone", "call us"),
        ("support_phone", "12345"),
        ("support_phone", "+234 803\n123 4567"),
        ("support_phone", "0" * 21),
    ],
)
def test_key_facts_details_are_refused_with_a_400_and_change_nothing(
    api, merchant_active, field, value
):
    response = api.patch(
        url(merchant_active),
        {field: value},
        format="json",
        **bearer(merchant_jwt(merchant_active)),
    )

    assert response.status_code == 400, response.content
    assert field in response.json()["errors"]
    merchant_active.refresh_from_db()
    assert getattr(merchant_active, field) == ""


def test_the_model_refuses_a_refund_policy_of_more_than_one_line(merchant_active):
    """The admin's forms validate with the model's validators."""
    merchant_active.refund_policy = "Returns:\nwithin 7 days"

    with pytest.raises(ValidationError) as refused:
        merchant_active.full_clean()

    assert "refund_policy" in refused.value.message_dict
