"""Approval, API access and suspension: command and admin actions (DESIGN §5, §12)."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import CommandError, call_command

from merchants.models import Merchant
from merchants.team.selectors import owner_of

from ..conftest import bearer, merchant_jwt

pytestmark = pytest.mark.django_db

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_approve_command_activates_and_emails_once(merchant_pending, committed):
    with committed():
        call_command("approve_merchant", merchant_pending.email)
    with committed():
        call_command("approve_merchant", merchant_pending.email)

    merchant_pending.refresh_from_db()
    assert merchant_pending.status == "active"
    assert merchant_pending.approved_at is not None
    assert merchant_pending.api_access_enabled is False
    approvals = [m for m in mail.outbox if "approved" in m.subject]
    assert len(approvals) == 1
    assert merchant_pending.public_id in approvals[0].body


def test_rerun_with_enable_api_access_enables_it(merchant_pending, committed):
    with committed():
        call_command("approve_merchant", merchant_pending.email)
    with committed():
        call_command("approve_merchant", merchant_pending.email, "--enable-api-access")

    merchant_pending.refresh_from_db()
    assert merchant_pending.api_access_enabled is True
    assert len([m for m in mail.outbox if "approved" in m.subject]) == 1


def test_rate_plan_option_sets_production(merchant_pending):
    call_command(
        "approve_merchant", merchant_pending.email.upper(), "--rate-plan", "production"
    )
    merchant_pending.refresh_from_db()
    assert merchant_pending.rate_plan == "production"


def test_unknown_email_is_a_clear_command_error(db):
    with pytest.raises(CommandError, match="No merchant is registered"):
        call_command("approve_merchant", "ghost@nowhere.ng")


@pytest.fixture
def staff_client(client):
    staff = get_user_model().objects.create_superuser(
        "staff", "staff@installments.ng", "Staff-Passw0rd-1"
    )
    client.force_login(staff)
    return client


def _act(client, action, merchant, confirm):
    data = {"action": action, "_selected_action": [merchant.pk]}
    if confirm:
        data["confirm"] = "yes"
    return client.post("/admin/merchants/merchant/", data)


def test_admin_approve_asks_for_confirmation_first(staff_client, merchant_pending):
    response = _act(staff_client, "approve", merchant_pending, confirm=False)

    assert response.status_code == 200
    assert b"are you sure" in response.content
    merchant_pending.refresh_from_db()
    assert merchant_pending.status == "pending"


def test_admin_approve_and_enable_api_access_then_key_works(
    staff_client, merchant_pending, api
):
    _act(staff_client, "approve", merchant_pending, confirm=True)
    _act(staff_client, "enable_api_access", merchant_pending, confirm=True)

    merchant_pending.refresh_from_db()
    assert merchant_pending.status == "active"
    assert merchant_pending.api_access_enabled is True
    response = api.post(
        f"/api/v1/merchant/{merchant_pending.public_id}/rotate-api-key",
        {},
        format="json",
        **bearer(merchant_jwt(merchant_pending)),
    )
    assert response.status_code == 201


def test_admin_suspend_stops_api_use_without_deleting(
    staff_client, merchant_with_key, api, committed
):
    merchant = merchant_with_key.merchant
    with committed():
        _act(staff_client, "suspend", merchant, confirm=True)

    merchant.refresh_from_db()
    assert merchant.status == "suspended"
    response = api.get(
        f"/api/v1/merchant/{merchant.public_id}/api-key/history",
        **merchant_with_key.headers,
    )
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "merchant_not_active"
    assert Merchant.objects.filter(pk=merchant.pk).exists()
    assert any("suspended" in m.subject for m in mail.outbox)


def test_admin_never_shows_key_material_or_password_hash(
    staff_client, merchant_with_key
):
    merchant = merchant_with_key.merchant
    page = staff_client.get(f"/admin/merchants/merchant/{merchant.pk}/change/")

    assert page.status_code == 200
    content = page.content.decode()
    key = merchant.api_keys.get()
    assert key.key_hash not in content
    assert merchant_with_key.api_key not in content
    assert owner_of(merchant).password not in content
    assert key.masked_prefix in content


def test_admin_lists_filter_by_status(staff_client, merchant_pending, merchant_active):
    page = staff_client.get("/admin/merchants/merchant/?status__exact=pending")
    assert merchant_pending.email in page.content.decode()
    assert merchant_active.email not in page.content.decode()


def test_admin_approve_says_that_api_access_is_a_second_step(
    staff_client, merchant_pending
):
    """The quickstart tells a new merchant of two steps (issue 25, item 9): the
    admin's "Approve" leaves API access off and says so to the operator."""
    asked = _act(staff_client, "approve", merchant_pending, confirm=False)
    assert b"It does not enable API access" in asked.content

    done = staff_client.post(
        "/admin/merchants/merchant/",
        {
            "action": "approve",
            "_selected_action": [merchant_pending.pk],
            "confirm": "yes",
        },
        follow=True,
    )

    merchant_pending.refresh_from_db()
    assert merchant_pending.status == "active"
    assert merchant_pending.api_access_enabled is False
    shown = [str(message) for message in done.context["messages"]]
    assert shown[0] == "Approved 1 merchant(s)."
    assert shown[1].startswith(
        f"API access is still off for {merchant_pending.business_name} "
        f"({merchant_pending.public_id})"
    )
    assert 'choose "Enable API access"' in shown[1]


def test_admin_approve_of_a_merchant_with_api_access_warns_of_nothing(
    staff_client, merchant_pending
):
    _act(staff_client, "enable_api_access", merchant_pending, confirm=True)
    done = staff_client.post(
        "/admin/merchants/merchant/",
        {
            "action": "approve",
            "_selected_action": [merchant_pending.pk],
            "confirm": "yes",
        },
        follow=True,
    )
    shown = [str(message) for message in done.context["messages"]]
    assert "Approved 1 merchant(s)." in shown
    assert not [message for message in shown if "still off" in message]


def test_the_quickstart_names_both_steps():
    text = (DOCS / "quickstart.md").read_text()
    assert "API access is enabled as part of it" not in text
    assert "we approve the account" in text
    assert "then we enable API access" in text
