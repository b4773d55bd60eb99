"""A password change or reset revokes every JWT issued before it, and a refresh
chain ends a fixed time after the sign-in that started it (issue 14, DESIGN §4).

Merchants change their password in the dashboard or reset it through the e-mailed
link; customers have no page or endpoint to change theirs yet, so their tests
change it through `Customer.set_password`, which any such page must use.
"""

import re
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework_simplejwt.tokens import RefreshToken

from config.api.auth import ROLE_CUSTOMER
from merchants.team.models import Member
from payments.models import Customer

from ..conftest import bearer
from ..dashboards import sign_in
from ..factories import PASSWORD, MerchantFactory

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "Brand-New-Passw0rd-77"
ME = "/api/v1/customers/me"
REFRESH = "/api/v1/auth/token/refresh"
REVOKED = "password changed after it was issued"


def settings_url(merchant) -> str:
    return f"/api/v1/merchant/{merchant.public_id}/settings"


def merchant_login(api, merchant, password=PASSWORD) -> dict:
    response = api.post(
        "/api/v1/auth/merchant/login",
        {"email": merchant.email, "password": password},
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()["data"]


def customer_login(api, customer, password=PASSWORD) -> dict:
    response = api.post(
        "/api/v1/auth/customer/login",
        {"email": customer.email, "password": password},
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()["data"]


def refresh(api, token: str):
    return api.post(REFRESH, {"refresh": token}, format="json")


def assert_revoked(response, kind: str) -> None:
    assert response.status_code == 401, response.content
    detail = response.json()["detail"]
    assert REVOKED in detail
    assert detail.startswith(f"The {kind} token was revoked")


def assert_merchant_tokens_revoked(api, merchant, old: dict) -> None:
    """The stolen pair can neither read nor change anything, nor mint a new pair."""
    assert_revoked(api.get(settings_url(merchant), **bearer(old["access"])), "access")
    changed = api.patch(
        settings_url(merchant),
        {"payout_account_number": "0123456789"},
        format="json",
        **bearer(old["access"]),
    )
    assert_revoked(changed, "access")
    rotated = api.post(
        f"/api/v1/merchant/{merchant.public_id}/rotate-api-key",
        {},
        format="json",
        **bearer(old["access"]),
    )
    assert_revoked(rotated, "access")
    assert_revoked(refresh(api, old["refresh"]), "refresh")
    merchant.refresh_from_db()
    assert merchant.api_keys.count() == 0
    assert merchant.payout_account_number == ""


def test_changing_the_password_in_the_dashboard_revokes_earlier_tokens(
    api, merchant_active
):
    stolen = merchant_login(api, merchant_active)
    refreshed = refresh(api, stolen["refresh"]).json()["data"]  # a chain in use
    dashboard = sign_in(Client(), merchant_active)

    changed = dashboard.post(
        "/dashboard/password/",
        {
            "current_password": PASSWORD,
            "new_password": NEW_PASSWORD,
            "new_password_confirm": NEW_PASSWORD,
        },
    )

    assert changed.status_code == 303
    assert_merchant_tokens_revoked(api, merchant_active, refreshed)
    fresh = merchant_login(api, merchant_active, NEW_PASSWORD)
    assert (
        api.get(settings_url(merchant_active), **bearer(fresh["access"])).status_code
        == 200
    )
    assert refresh(api, fresh["refresh"]).status_code == 200


def reset_through_the_emailed_link(client: Client, merchant, committed) -> None:
    with committed():
        client.post("/dashboard/password-reset/", {"email": merchant.email})
    [message] = mail.outbox
    link = re.search(r"https?://\S+(/dashboard/password-reset/\S+/)", message.body)
    form_url = client.get(link[1])["Location"]
    done = client.post(
        form_url, {"new_password": NEW_PASSWORD, "new_password_confirm": NEW_PASSWORD}
    )
    assert done.status_code == 303, done.content


def test_resetting_the_password_by_email_revokes_earlier_tokens(
    api, merchant_active, committed
):
    stolen = merchant_login(api, merchant_active)

    reset_through_the_emailed_link(Client(), merchant_active, committed)

    assert_merchant_tokens_revoked(api, merchant_active, stolen)
    fresh = merchant_login(api, merchant_active, NEW_PASSWORD)
    assert (
        api.get(settings_url(merchant_active), **bearer(fresh["access"])).status_code
        == 200
    )


def test_resetting_the_password_ends_dashboard_sessions_elsewhere(
    merchant_active, committed
):
    elsewhere = sign_in(Client(), merchant_active)

    reset_through_the_emailed_link(Client(), merchant_active, committed)

    assert elsewhere.get("/dashboard/keys/").status_code == 302
    assert (
        sign_in(Client(), merchant_active, NEW_PASSWORD).get("/dashboard/").status_code
        == 200
    )


def change_customer_password(customer: Customer) -> None:
    customer = Customer.objects.get(pk=customer.pk)
    customer.set_password(NEW_PASSWORD)
    customer.save()


def test_a_customer_password_change_revokes_earlier_tokens(api, customer):
    stolen = customer_login(api, customer)
    refreshed = refresh(api, stolen["refresh"]).json()["data"]

    change_customer_password(customer)

    assert_revoked(api.get(ME, **bearer(stolen["access"])), "access")
    assert_revoked(api.get(ME, **bearer(refreshed["access"])), "access")
    assert_revoked(refresh(api, refreshed["refresh"]), "refresh")
    fresh = customer_login(api, customer, NEW_PASSWORD)
    assert api.get(ME, **bearer(fresh["access"])).status_code == 200
    assert refresh(api, fresh["refresh"]).status_code == 200


def test_a_customer_password_change_ends_account_sessions_elsewhere(customer):
    elsewhere = Client()
    signed_in = elsewhere.post(
        "/account/login/", {"email": customer.email, "password": PASSWORD}
    )
    assert signed_in.status_code == 303
    assert elsewhere.get("/account/").status_code == 200

    change_customer_password(customer)

    assert elsewhere.get("/account/").status_code == 302
    again = Client().post(
        "/account/login/", {"email": customer.email, "password": NEW_PASSWORD}
    )
    assert again.status_code == 303


@pytest.mark.parametrize("model", [Member, Customer])
def test_set_password_moves_the_credential_version_on(model):
    account = model(credential_version=4)

    account.set_password(NEW_PASSWORD)

    assert account.credential_version == 5


def test_a_refresh_chain_ends_30_days_after_its_sign_in(api, customer):
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        tokens = customer_login(api, customer)
        # Refreshed well within each token's 7 days, again and again.
        for days in (6, 12, 18, 24, 29):
            clock.move_to(start + timedelta(days=days))
            answer = refresh(api, tokens["refresh"])
            assert answer.status_code == 200, (days, answer.content)
            tokens = answer.json()["data"]
        clock.move_to(start + timedelta(days=29, hours=23, minutes=55))
        last = refresh(api, tokens["refresh"]).json()["data"]
        assert api.get(ME, **bearer(last["access"])).status_code == 200

        clock.move_to(start + timedelta(days=30, minutes=1))

        expired = api.get(ME, **bearer(last["access"]))
        refused = refresh(api, last["refresh"])
        assert expired.status_code == 401
        assert "expired" in expired.json()["detail"]
        assert refused.status_code == 401
        assert "expired" in refused.json()["detail"]
        fresh = customer_login(api, customer)
        assert api.get(ME, **bearer(fresh["access"])).status_code == 200


def test_lowering_the_sign_in_lifetime_ends_chains_already_started(
    api, merchant_active, settings
):
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        tokens = merchant_login(api, merchant_active)
        settings.JWT_SIGN_IN_LIFETIME = timedelta(days=3)
        clock.move_to(start + timedelta(days=3, minutes=1))

        refused = refresh(api, tokens["refresh"])

    assert refused.status_code == 401
    assert refused.json()["detail"] == (
        "The sign-in this refresh token belongs to is more than 3 days old. "
        "Sign in again."
    )


def legacy_pair(customer) -> dict:
    """A pair as issued before credential versions and `auth_time` existed."""
    token = RefreshToken()
    token["role"] = ROLE_CUSTOMER
    token["sub"] = customer.public_id
    return {"access": str(token.access_token), "refresh": str(token)}


def test_tokens_from_before_versions_work_until_the_password_changes(api, customer):
    legacy = legacy_pair(customer)
    assert api.get(ME, **bearer(legacy["access"])).status_code == 200
    renewed = refresh(api, legacy["refresh"])
    assert renewed.status_code == 200
    second = legacy_pair(customer)

    change_customer_password(customer)

    assert_revoked(api.get(ME, **bearer(second["access"])), "access")
    assert_revoked(refresh(api, second["refresh"]), "refresh")
    assert_revoked(api.get(ME, **bearer(renewed.json()["data"]["access"])), "access")


def test_a_chain_from_before_auth_time_ends_30_days_after_its_first_token(
    api, customer
):
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        tokens = legacy_pair(customer)
        for days in (6, 12, 18, 24):
            clock.move_to(start + timedelta(days=days))
            tokens = refresh(api, tokens["refresh"]).json()["data"]

        clock.move_to(start + timedelta(days=30, minutes=1))

        assert refresh(api, tokens["refresh"]).status_code == 401


def test_staff_cannot_edit_a_credential_version_in_the_admin(admin_client, customer):
    for page in (
        f"/admin/payments/customer/{customer.pk}/change/",
        f"/admin/merchants/merchant/{MerchantFactory().pk}/change/",
    ):
        response = admin_client.get(page)

        assert response.status_code == 200
        assert 'name="credential_version"' not in response.content.decode()
