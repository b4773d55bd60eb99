"""Dashboard overview, API keys and settings pages (DESIGN §12)."""

import re

import pytest
from django.db import connection

from merchants import services
from merchants.models import ApiKey, Merchant

from ..conftest import bearer, make_merchant_with_key, merchant_jwt
from ..factories import MerchantFactory

pytestmark = pytest.mark.django_db

KEY_PATTERN = re.compile(r"service_live_sk_[A-Za-z0-9_-]{40,}")
SECRET_PATTERN = re.compile(r"whsec_[A-Za-z0-9_-]{40,}")


def field_error(page: str, field: str, message: str) -> bool:
    """True when `message` is shown in the block of form field `field` (between its
    `data-field` marker and the next field or the end of the form)."""
    start = page.find(f'data-field="{field}"')
    if start < 0:
        return False
    ends = [
        index
        for index in (page.find("data-field=", start + 1), page.find("</form>", start))
        if index >= 0
    ]
    return message in page[start : min(ends)]


def test_a_pending_merchant_sees_the_pending_approval_banner(
    dashboard_for, merchant_pending
):
    page = dashboard_for(merchant_pending).get("/dashboard/").content.decode()

    assert "Your account is pending approval." in page
    assert 'data-testid="account-status">Pending<' in page


def test_a_suspended_merchant_sees_the_suspended_banner(dashboard_for, db):
    merchant = MerchantFactory(status=Merchant.Status.SUSPENDED)

    page = dashboard_for(merchant).get("/dashboard/").content.decode()

    assert "Your account is suspended." in page


def test_an_active_merchant_sees_no_status_banner(dashboard_for, merchant_active):
    page = dashboard_for(merchant_active).get("/dashboard/").content.decode()

    assert 'data-testid="status-banner"' not in page
    assert 'data-testid="account-status">Active<' in page


def test_the_shell_links_every_dashboard_section(dashboard_for, merchant_active):
    page = dashboard_for(merchant_active).get("/dashboard/keys/").content.decode()

    for href in (
        "/dashboard/",
        "/dashboard/keys/",
        "/dashboard/webhooks/",
        "/dashboard/links/",
        "/dashboard/plans/",
        "/dashboard/wallet/",
        "/dashboard/settings/",
    ):
        assert f'href="{href}"' in page
    assert 'href="/dashboard/keys/" class="nav-link is-current"' in page


def test_dashboard_pages_are_never_cached(dashboard_for, merchant_active):
    response = dashboard_for(merchant_active).get("/dashboard/keys/")

    assert "no-store" in response["Cache-Control"]


def test_a_generated_key_is_shown_once_and_works(dashboard_for, merchant_active, api):
    client = dashboard_for(merchant_active)

    response = client.post("/dashboard/keys/", {"name": "Production server"})

    page = response.content.decode()
    [plaintext] = set(KEY_PATTERN.findall(page))
    assert response.status_code == 200
    assert "We show it only this once." in page
    assert 'data-replace-url="/dashboard/keys/"' in page
    # The first key replaced nothing (issue 25, item 9).
    assert "Your API key" in page
    assert "previous key" not in page
    assert "no-store" in response["Cache-Control"]
    key = ApiKey.objects.get(merchant=merchant_active)
    assert key.name == "Production server"
    assert plaintext not in (key.key_hash, key.display_prefix)
    history = api.get(
        f"/api/v1/merchant/{merchant_active.public_id}/api-key/history",
        **bearer(plaintext),
    )
    assert history.status_code == 200
    again = client.get("/dashboard/keys/").content.decode()
    assert plaintext not in again
    assert KEY_PATTERN.search(again) is None
    assert key.masked_prefix in again


def test_rotating_revokes_the_old_key_and_lists_it_masked(
    dashboard_for, merchant_with_key, api
):
    merchant = merchant_with_key.merchant
    old = merchant.api_keys.get()
    client = dashboard_for(merchant)

    rotated = client.post("/dashboard/keys/", {"name": ""}).content.decode()
    assert "Your previous key stopped working just now." in rotated

    page = client.get("/dashboard/keys/").content.decode()
    history = re.search(r'data-testid="key-history">(.*?)</table>', page, re.S)[1]
    assert old.masked_prefix in history
    assert merchant_with_key.api_key not in page
    refused = api.get(
        f"/api/v1/merchant/{merchant.public_id}/api-key/history",
        **merchant_with_key.headers,
    )
    assert refused.status_code == 401


def test_the_revoked_key_history_is_paginated(dashboard_for, merchant_active):
    for _ in range(12):
        services.api_key_rotate(merchant=merchant_active)
    client = dashboard_for(merchant_active)
    revoked = list(
        ApiKey.objects.filter(merchant=merchant_active, revoked_at__isnull=False)
        .order_by("-revoked_at", "-id")
        .values_list("display_prefix", flat=True)
    )

    first = client.get("/dashboard/keys/").content.decode()
    second = client.get("/dashboard/keys/?page=2").content.decode()

    assert len(revoked) == 11
    assert "Page 1 of 2" in first
    history = re.search(r'data-testid="key-history">(.*?)</table>', first, re.S)[1]
    assert history.count("<tr>") == 1 + 10  # the header row, then 10 keys
    assert f"service_live_sk_{revoked[-1]}..." in second
    assert "Page 2 of 2" in second


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "Your account is pending approval."),
        ({"status": Merchant.Status.SUSPENDED}, "Your account is suspended"),
        (
            {"status": Merchant.Status.ACTIVE},
            "API access is not enabled for your account yet.",
        ),
    ],
)
def test_keys_are_refused_clearly_when_the_account_cannot_use_the_api(
    dashboard_for, db, fields, message
):
    merchant = MerchantFactory(**fields)
    client = dashboard_for(merchant)

    page = client.get("/dashboard/keys/").content.decode()
    forced = client.post("/dashboard/keys/", {"name": "sneaky"})

    assert message in page
    assert "Generate key" not in page
    assert forced.status_code == 403
    assert message in forced.content.decode()
    assert not ApiKey.objects.filter(merchant=merchant).exists()


def test_a_too_long_key_name_is_refused_next_to_the_field(
    dashboard_for, merchant_active
):
    response = dashboard_for(merchant_active).post(
        "/dashboard/keys/", {"name": "x" * 101}
    )

    assert response.status_code == 400
    assert field_error(
        response.content.decode(),
        "name",
        "Ensure this field has no more than 100 characters.",
    )
    assert not ApiKey.objects.filter(merchant=merchant_active).exists()


def test_pages_show_only_the_signed_in_merchants_keys(dashboard_for, db):
    mine = make_merchant_with_key()
    theirs = make_merchant_with_key()
    services.api_key_rotate(merchant=theirs.merchant, name="their old key")
    their_keys = list(theirs.merchant.api_keys.all())
    client = dashboard_for(mine.merchant)

    client.post("/dashboard/keys/", {"name": "mine"})
    pages = "".join(
        client.get(path).content.decode()
        for path in ("/dashboard/", "/dashboard/keys/", "/dashboard/settings/")
    )

    for key in their_keys:
        assert key.masked_prefix not in pages
    assert "their old key" not in pages
    assert theirs.merchant.public_id not in pages
    assert theirs.merchant.api_keys.filter(revoked_at__isnull=True).count() == 1
    assert mine.merchant.api_keys.count() == 2


def test_settings_change_only_the_signed_in_merchant(dashboard_for, db):
    mine = MerchantFactory(status=Merchant.Status.ACTIVE)
    theirs = MerchantFactory(status=Merchant.Status.ACTIVE)
    client = dashboard_for(mine)

    client.post(
        "/dashboard/settings/",
        {"action": "webhook_url", "webhook_url": "https://mine.example.com/hooks"},
    )
    client.post("/dashboard/settings/", {"action": "webhook_secret"})

    theirs.refresh_from_db()
    mine.refresh_from_db()
    assert mine.webhook_url == "https://mine.example.com/hooks"
    assert mine.webhook_secret
    assert theirs.webhook_url == ""
    assert theirs.webhook_secret == ""


def test_saving_the_webhook_url_confirms_and_shows_it(dashboard_for, merchant_active):
    client = dashboard_for(merchant_active)

    response = client.post(
        "/dashboard/settings/",
        {"action": "webhook_url", "webhook_url": "https://shop.example.com/hooks"},
        follow=True,
    )

    page = response.content.decode()
    assert "Webhook URL saved." in page
    assert 'value="https://shop.example.com/hooks"' in page
    merchant_active.refresh_from_db()
    assert merchant_active.webhook_url == "https://shop.example.com/hooks"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://shop.example.com/hooks", "The webhook URL must use https."),
        ("not a url", "Enter a valid URL."),
    ],
)
def test_a_refused_webhook_url_says_why_next_to_the_field(
    dashboard_for, merchant_active, url, message
):
    response = dashboard_for(merchant_active).post(
        "/dashboard/settings/", {"action": "webhook_url", "webhook_url": url}
    )

    assert response.status_code == 400
    assert field_error(response.content.decode(), "webhook_url", message)
    merchant_active.refresh_from_db()
    assert merchant_active.webhook_url == ""


@pytest.mark.parametrize(
    ("url", "private_networks", "message"),
    [
        (
            "ftp://shop.example.com/hooks",
            True,
            "The webhook URL must use http or https.",
        ),
        (
            "http://127.0.0.1/hooks",
            False,
            "The webhook URL is not allowed: 127.0.0.1 resolves to 127.0.0.1, a "
            "loopback, private, link-local or reserved address.",
        ),
        (
            "https://169.254.169.254/latest/meta-data/",
            True,
            "The webhook URL is not allowed: 169.254.169.254 resolves to "
            "169.254.169.254, a loopback, private, link-local or reserved address.",
        ),
    ],
)
def test_the_settings_form_refuses_what_sending_would_refuse(
    dashboard_for, merchant_active, settings, url, private_networks, message
):
    settings.DEBUG = settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = private_networks

    response = dashboard_for(merchant_active).post(
        "/dashboard/settings/", {"action": "webhook_url", "webhook_url": url}
    )

    assert response.status_code == 400
    assert field_error(response.content.decode(), "webhook_url", message)
    merchant_active.refresh_from_db()
    assert merchant_active.webhook_url == ""


def test_a_regenerated_webhook_secret_is_shown_once_and_never_again(
    dashboard_for, merchant_active, api
):
    client = dashboard_for(merchant_active)

    first = client.post("/dashboard/settings/", {"action": "webhook_secret"})
    [secret] = set(SECRET_PATTERN.findall(first.content.decode()))
    second = client.post("/dashboard/settings/", {"action": "webhook_secret"})
    [new_secret] = set(SECRET_PATTERN.findall(second.content.decode()))

    merchant_active.refresh_from_db()
    assert merchant_active.webhook_secret == new_secret != secret
    assert "no-store" in first["Cache-Control"]
    later_pages = "".join(
        client.get(path).content.decode()
        for path in ("/dashboard/", "/dashboard/settings/", "/dashboard/keys/")
    )
    assert new_secret not in later_pages
    assert SECRET_PATTERN.search(later_pages) is None
    assert f"whsec_{new_secret[6:10]}…" in later_pages
    assert new_secret not in second.content.decode().replace(
        f'id="new-webhook-secret">{new_secret}<', ""
    )
    settings_api = api.get(
        f"/api/v1/merchant/{merchant_active.public_id}/settings",
        **bearer(merchant_jwt(merchant_active)),
    )
    assert settings_api.json()["data"]["webhook_secret_set"] is True


def test_a_webhook_secret_set_through_the_api_is_never_rendered(
    dashboard_for, merchant_active, api
):
    secret = "my-own-secret-0123456789"
    api.patch(
        f"/api/v1/merchant/{merchant_active.public_id}/settings",
        {"webhook_secret": secret},
        format="json",
        **bearer(merchant_jwt(merchant_active)),
    )
    client = dashboard_for(merchant_active)

    page = client.get("/dashboard/settings/").content.decode()

    assert secret not in page
    assert "my-o…" in page
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT webhook_secret FROM merchants_merchant WHERE id = %s",
            [merchant_active.pk],
        )
        assert secret not in cursor.fetchone()[0]


def plan_form(**overrides) -> dict:
    return {
        "action": "plan",
        "allowed_schedule_types": ["monthly", "weekly"],
        "min_installments": "2",
        "max_installments": "9",
        "min_deposit_percent": "25",
        "release_rule": "after_installments",
        "release_after": "3",
        "partial_collection_min_percent": "40",
        **overrides,
    }


def test_plan_configuration_is_saved(dashboard_for, merchant_active):
    client = dashboard_for(merchant_active)

    response = client.post("/dashboard/settings/", plan_form(), follow=True)

    assert "Plan configuration saved." in response.content.decode()
    merchant_active.refresh_from_db()
    assert merchant_active.allowed_schedule_types == ["monthly", "weekly"]
    assert merchant_active.min_installments == 2
    assert merchant_active.max_installments == 9
    assert merchant_active.min_deposit_percent == 25
    assert merchant_active.release_rule == "after_installments:3"
    assert merchant_active.partial_collection_min_percent == 40
    page = client.get("/dashboard/settings/").content.decode()
    assert re.search(r'value="after_installments"[^>]*selected', page)
    assert re.search(r'name="release_after" value="3"', page)
    assert re.search(r'name="partial_collection_min_percent" value="40"', page)


def test_partial_collection_is_turned_off_by_leaving_it_empty(
    dashboard_for, merchant_active
):
    Merchant.objects.filter(pk=merchant_active.pk).update(
        partial_collection_min_percent=30
    )

    dashboard_for(merchant_active).post(
        "/dashboard/settings/", plan_form(partial_collection_min_percent="")
    )

    merchant_active.refresh_from_db()
    assert merchant_active.partial_collection_min_percent is None


@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        (
            {"min_deposit_percent": "95"},
            "min_deposit_percent",
            "Ensure this value is less than or equal to 90.",
        ),
        (
            {"max_installments": "13"},
            "max_installments",
            "Ensure this value is less than or equal to 12.",
        ),
        (
            {"min_installments": "5", "max_installments": "3"},
            "min_installments",
            "The minimum number of installments cannot exceed the maximum (5 &gt; 3).",
        ),
        (
            {"allowed_schedule_types": []},
            "allowed_schedule_types",
            "Choose at least one schedule type.",
        ),
        (
            {"allowed_schedule_types": ["daily"]},
            "allowed_schedule_types",
            "Select a valid choice. daily is not one of the available choices.",
        ),
        (
            {"release_after": ""},
            "release_after",
            "Enter after how many paid installments (1 to 12)",
        ),
        (
            {"release_after": "13"},
            "release_after",
            "Use on_deposit, on_completion or after_installments:N",
        ),
        ({"min_installments": "two"}, "min_installments", "Enter a whole number."),
        (
            {"partial_collection_min_percent": "100"},
            "partial_collection_min_percent",
            "Ensure this value is less than or equal to 99.",
        ),
        (
            {"partial_collection_min_percent": "0"},
            "partial_collection_min_percent",
            "Ensure this value is greater than or equal to 1.",
        ),
    ],
)
def test_a_refused_plan_configuration_says_why_next_to_the_field(
    dashboard_for, merchant_active, overrides, field, message
):
    response = dashboard_for(merchant_active).post(
        "/dashboard/settings/", plan_form(**overrides)
    )

    assert response.status_code == 400
    assert field_error(response.content.decode(), field, message)
    unchanged = Merchant.objects.get(pk=merchant_active.pk)
    assert unchanged.min_deposit_percent == 0
    assert unchanged.release_rule == "on_deposit"
    assert unchanged.partial_collection_min_percent is None


def test_the_dashboard_and_the_api_share_the_settings_rules(
    dashboard_for, merchant_active, api
):
    api_response = api.patch(
        f"/api/v1/merchant/{merchant_active.public_id}/settings",
        {"allowed_schedule_types": [], "min_deposit_percent": 95},
        format="json",
        **bearer(merchant_jwt(merchant_active)),
    )
    page = (
        dashboard_for(merchant_active)
        .post(
            "/dashboard/settings/",
            plan_form(allowed_schedule_types=[], min_deposit_percent="95"),
        )
        .content.decode()
    )

    errors = api_response.json()["errors"]
    assert field_error(
        page, "allowed_schedule_types", errors["allowed_schedule_types"][0]
    )
    assert field_error(page, "min_deposit_percent", errors["min_deposit_percent"][0])


def test_an_unknown_settings_action_is_a_bad_request(dashboard_for, merchant_active):
    response = dashboard_for(merchant_active).post(
        "/dashboard/settings/", {"action": "payout"}
    )

    assert response.status_code == 400


def test_a_pending_merchant_can_prepare_settings_before_approval(
    dashboard_for, merchant_pending
):
    client = dashboard_for(merchant_pending)

    client.post(
        "/dashboard/settings/",
        {"action": "webhook_url", "webhook_url": "https://shop.example.com/hooks"},
    )
    client.post("/dashboard/settings/", plan_form())

    merchant_pending.refresh_from_db()
    assert merchant_pending.webhook_url == "https://shop.example.com/hooks"
    assert merchant_pending.release_rule == "after_installments:3"


# --- the key facts details (DESIGN section 18) ---------------------------------------

LEGAL_FORM = {
    "action": "legal",
    "legal_name": "Ada Gadgets Limited",
    "support_email": "help@adagadgets.example",
    "support_phone": "+234 803 123 4567",
    "fccpc_registration_number": "FCCPC/DL/2025/0042",
    "refund_policy": "Return it unopened within 7 days for a full refund.",
}


def test_the_dashboard_says_which_key_facts_details_are_missing(
    dashboard_for, merchant_active
):
    merchant_active.legal_name = "Ada Gadgets Limited"
    merchant_active.refund_policy = "Returns within 7 days."
    merchant_active.save()
    client = dashboard_for(merchant_active)

    for path in ("/dashboard/", "/dashboard/settings/"):
        page = re.sub(r"\s+", " ", client.get(path).content.decode())
        notice = page.split('data-testid="legal-missing"')[1].split("</div>")[0]
        assert "Support e-mail, Support phone, FCCPC registration number" in notice, (
            path
        )
        assert "Legal name" not in notice and "refund policy" not in notice


def test_saving_every_key_facts_detail_removes_the_notice(
    dashboard_for, merchant_active
):
    client = dashboard_for(merchant_active)

    response = client.post("/dashboard/settings/", LEGAL_FORM, follow=True)

    page = response.content.decode()
    assert "Key facts details saved." in page
    assert 'data-testid="legal-missing"' not in page
    assert (
        'data-testid="legal-missing"' not in client.get("/dashboard/").content.decode()
    )
    merchant_active.refresh_from_db()
    assert merchant_active.fccpc_registration_number == "FCCPC/DL/2025/0042"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("legal_name", "Ada\nGadgets", "Line breaks and other control characters"),
        ("refund_policy", "Returns:\r\n7 days", "Line breaks and other control"),
        ("support_phone", "call us", "Enter a phone number"),
        ("support_email", "nobody", "Enter a valid email address."),
    ],
)
def test_a_refused_key_facts_detail_says_why_next_to_the_field(
    dashboard_for, merchant_active, field, value, message
):
    response = dashboard_for(merchant_active).post(
        "/dashboard/settings/", {**LEGAL_FORM, field: value}
    )

    assert response.status_code == 400
    assert field_error(response.content.decode(), field, message)
    merchant_active.refresh_from_db()
    assert merchant_active.legal_name == ""
