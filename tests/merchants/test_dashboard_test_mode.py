"""The dashboard's test mode (DESIGN section 21, docs/dashboard.md#test-mode):
the "Test data" switch, the band on every page, every data page on the test
side while the account's pages (team, audit log, status) stay the live
account's, both keys on the keys page and the test webhook on the settings
page."""

import re

import pytest
from django.test import Client, RequestFactory

from checkout.services.links import payment_link_create
from config.sides import in_test_side, leave_test_side
from merchants import selectors as merchant_selectors
from merchants import services as merchant_services
from merchants.audit.models import AuditEntry
from merchants.dashboard.auth import SESSION_TEST_MODE_KEY, session_member
from merchants.models import ApiKey, Merchant, hash_api_key
from merchants.team.roles import Role, may
from webhooks.models import Event

from ..conftest import MerchantWithKey, make_merchant_with_key, with_test_key
from ..dashboards import sign_in
from ..factories import MerchantFactory
from ..installments.conftest import make_active_plan
from .pages import PAGES
from .team import signed_in, team_of

pytestmark = pytest.mark.django_db

SWITCH = "/dashboard/test-mode/"
BAND = 'data-testid="test-band"'
BAND_TEXT = "nothing here moves real money"
TEST_KEY = re.compile(r"service_test_sk_[A-Za-z0-9_-]{40,}")


def switch(client: Client, on: bool, next_url: str = "/dashboard/plans/"):
    return client.post(SWITCH, {"test_mode": "on" if on else "off", "next": next_url})


def in_test_mode(client: Client) -> Client:
    response = switch(client, True)
    assert response.status_code == 303, response.content.decode()[:500]
    return client


@pytest.fixture
def plans_on_both_sides():
    """A live plan and a test plan of one account, made through checkout with a
    live key and a test key."""
    owner = make_merchant_with_key()
    live = make_active_plan(owner)
    test = make_active_plan(with_test_key(owner), email="bola@mail.example.com")
    assert live.plan.merchant.livemode and not test.plan.merchant.livemode
    return owner.merchant, live.plan, test.plan


# --- the switch ---------------------------------------------------------------


def test_the_switch_turns_the_dashboard_to_test_data_and_back(
    dashboard_for, merchant_active
):
    client = dashboard_for(merchant_active)
    live_page = client.get("/dashboard/plans/").content.decode()
    assert BAND not in live_page
    assert 'role="switch" aria-checked="false"' in live_page

    response = switch(client, True)

    assert response.status_code == 303
    assert response["Location"] == "/dashboard/plans/"
    assert client.session[SESSION_TEST_MODE_KEY] is True
    test_page = client.get("/dashboard/plans/").content.decode()
    assert BAND in test_page and BAND_TEXT in test_page
    assert 'role="switch" aria-checked="true"' in test_page
    assert merchant_selectors.test_side_of(merchant_active) is not None

    assert switch(client, False).status_code == 303
    assert SESSION_TEST_MODE_KEY not in client.session
    assert BAND not in client.get("/dashboard/plans/").content.decode()


def test_switching_records_nothing_and_makes_the_test_side_once(
    dashboard_for, merchant_active
):
    client = dashboard_for(merchant_active)
    entries = AuditEntry.objects.count()

    for on in (True, False, True):
        switch(client, on)
    client.get("/dashboard/")

    assert AuditEntry.objects.count() == entries
    assert Merchant.objects.filter(live_account=merchant_active).count() == 1


def test_every_member_who_may_view_may_switch(merchant_active):
    for role, member in team_of(merchant_active).items():
        assert may(role, "view")
        client = signed_in(member)
        assert switch(client, True).status_code == 303, role
        assert BAND in client.get("/dashboard/").content.decode(), role


def test_the_switch_returns_to_a_list_but_not_to_a_record_of_the_other_side(
    dashboard_for, merchant_active
):
    client = dashboard_for(merchant_active)

    assert switch(client, True, "/dashboard/wallet/?page=2")["Location"] == (
        "/dashboard/wallet/?page=2"
    )
    assert switch(client, False, "/dashboard/plans/plan_abc/")["Location"] == (
        "/dashboard/"
    )
    assert switch(client, True, "https://evil.example.com/")["Location"] == (
        "/dashboard/"
    )
    assert switch(client, False, "/nowhere/")["Location"] == "/dashboard/"


def test_a_switch_neither_on_nor_off_is_refused_and_changes_nothing(
    dashboard_for, merchant_active
):
    client = dashboard_for(merchant_active)

    assert client.post(SWITCH, {"test_mode": "maybe"}).status_code == 400
    assert client.get(SWITCH).status_code == 405
    assert SESSION_TEST_MODE_KEY not in client.session
    assert Client().post(SWITCH, {"test_mode": "on"}).status_code == 302


def test_a_suspended_account_may_not_switch_to_test_data(dashboard_for, db):
    merchant = MerchantFactory(status=Merchant.Status.SUSPENDED)
    client = dashboard_for(merchant)
    assert 'data-testid="test-switch"' not in client.get("/dashboard/").content.decode()

    response = switch(client, True)

    assert response.status_code == 403
    assert "Your account is suspended" in response.content.decode()
    assert SESSION_TEST_MODE_KEY not in client.session
    assert BAND not in client.get("/dashboard/").content.decode()


def test_an_account_suspended_in_test_mode_is_back_on_live_data(
    dashboard_for, merchant_active
):
    client = in_test_mode(dashboard_for(merchant_active))

    merchant_services.merchant_suspend(merchant=merchant_active)
    page = client.get("/dashboard/").content.decode()

    assert BAND not in page
    assert "Your account is suspended." in page
    assert SESSION_TEST_MODE_KEY not in client.session


def test_signing_out_and_in_again_starts_on_live_data(dashboard_for, merchant_active):
    client = in_test_mode(dashboard_for(merchant_active))

    client.post("/dashboard/logout/")
    sign_in(client, merchant_active)

    assert BAND not in client.get("/dashboard/").content.decode()


def test_a_request_in_test_mode_enters_the_test_side(dashboard_for, merchant_active):
    """So a live processor's adapter refuses whatever a page would ask of it
    (config/sides.py)."""
    client = in_test_mode(dashboard_for(merchant_active))
    request = RequestFactory().get("/dashboard/")
    request.session = client.session
    try:
        member = session_member(request)

        assert in_test_side()
        assert request.merchant == merchant_selectors.test_side_of(merchant_active)
        assert request.merchant.member == member
        assert request.account == merchant_active
        assert request.account.member == member
    finally:
        leave_test_side()


# --- the band on every page ----------------------------------------------------

# Parameters this test has no test record for: their pages extend the same
# base template, and tests/merchants/test_role_matrix_pages.py reaches them.
UNFILLED = {"dispute_id", "payout_id", "attempt_id"}


def test_every_dashboard_page_shows_the_band_in_test_mode_and_never_in_live(
    merchant_active,
):
    """Generated over every signed-in dashboard page (the role matrix's walk):
    each HTML page shows the band in test mode, the same page none in live
    mode, with the test side's own records filling the ids."""
    owner = MerchantWithKey(merchant=merchant_active, api_key="")
    plan = make_active_plan(with_test_key(owner)).plan
    side = plan.merchant
    link = payment_link_create(
        merchant=side, title="Test lamp", amount=500_000, currency="NGN"
    )
    ids = {
        "plan_id": plan.public_id,
        "link_id": link.public_id,
        "event_id": Event.objects.filter(merchant=side).first().public_id,
    }
    owner_client = sign_in(Client(), merchant_active)
    seen = 0
    for path, view in sorted(PAGES.items()):
        params = set(re.findall(r"<(?:\w+:)?(\w+)>", path))
        if not hasattr(view, "get") or params & UNFILLED:
            continue
        url = re.sub(r"<(?:\w+:)?(\w+)>", lambda m: ids[m.group(1)], path)
        switch(owner_client, True)
        response = owner_client.get(url)
        if "text/html" not in response.get("Content-Type", ""):
            continue  # a CSV or PDF download
        assert response.status_code == 200, url
        assert BAND in response.content.decode(), url
        switch(owner_client, False)
        # Live: the page (or the 404 of a test record's id) shows no band.
        assert BAND not in owner_client.get(url).content.decode(), url
        seen += 1
    assert seen > 15


# --- data pages on the side shown ----------------------------------------------


def test_the_plans_list_shows_only_the_side_shown(plans_on_both_sides):
    merchant, live, test = plans_on_both_sides
    client = sign_in(Client(), merchant)

    live_page = client.get("/dashboard/plans/").content.decode()
    test_page = in_test_mode(client).get("/dashboard/plans/").content.decode()

    assert live.public_id in live_page and test.public_id not in live_page
    assert test.public_id in test_page and live.public_id not in test_page


def test_a_plan_of_one_side_is_not_found_on_the_other(plans_on_both_sides):
    merchant, live, test = plans_on_both_sides
    client = sign_in(Client(), merchant)

    assert client.get(f"/dashboard/plans/{test.public_id}/").status_code == 404
    assert client.get(f"/dashboard/plans/{live.public_id}/").status_code == 200
    in_test_mode(client)
    assert client.get(f"/dashboard/plans/{live.public_id}/").status_code == 404
    assert client.get(f"/dashboard/plans/{test.public_id}/").status_code == 200


def test_a_link_made_in_test_mode_is_a_test_link(dashboard_for, merchant_active):
    client = in_test_mode(dashboard_for(merchant_active))

    client.post(
        "/dashboard/links/", {"title": "Test lamp", "amount": "5000", "currency": "NGN"}
    )

    side = merchant_selectors.test_side_of(merchant_active)
    assert side.payment_links.count() == 1
    assert not merchant_active.payment_links.exists()
    assert "Test lamp" in client.get("/dashboard/links/").content.decode()
    switch(client, False)
    assert "Test lamp" not in client.get("/dashboard/links/").content.decode()


# --- the account's pages ---------------------------------------------------------


def test_the_team_is_the_accounts_and_the_audit_log_the_sides_in_test_mode(
    merchant_active,
):
    """The team is the account's on both sides; the audit log is the side's
    (DESIGN section 21: no list mixes the sides): a live key's creation is in
    the live log only, a test key's in the test log only."""
    team = team_of(merchant_active)
    live_key, _ = merchant_services.api_key_rotate(merchant=merchant_active)
    test_key, _ = merchant_services.api_key_rotate(
        merchant=merchant_active, mode="test"
    )
    client = signed_in(team[Role.OWNER])

    live_audit = client.get("/dashboard/audit-log/").content.decode()
    in_test_mode(client)
    team_page = client.get("/dashboard/team/").content.decode()
    audit_page = client.get("/dashboard/audit-log/").content.decode()
    csv = b"".join(client.get("/dashboard/audit-log.csv").streaming_content).decode()

    assert BAND in team_page and BAND in audit_page
    for member in team.values():
        assert member.email in team_page
    assert test_key.masked_prefix in audit_page and test_key.masked_prefix in csv
    assert live_key.masked_prefix not in audit_page
    assert live_key.masked_prefix not in csv
    assert live_key.masked_prefix in live_audit
    assert test_key.masked_prefix not in live_audit


def test_the_status_banner_is_the_accounts_in_test_mode(
    dashboard_for, merchant_pending
):
    page = in_test_mode(dashboard_for(merchant_pending)).get("/dashboard/")

    assert "Your account is pending approval." in page.content.decode()
    assert 'data-testid="account-status">Pending<' in page.content.decode()
    assert merchant_pending.public_id in page.content.decode()


def test_the_overview_tells_a_pending_merchant_to_build_against_test_mode(
    dashboard_for, merchant_pending, merchant_active
):
    pending = dashboard_for(merchant_pending).get("/dashboard/").content.decode()
    active = dashboard_for(merchant_active).get("/dashboard/").content.decode()

    assert 'data-testid="build-in-test-mode"' in pending
    assert "Build against test mode now." in pending
    assert 'data-testid="build-in-test-mode"' not in active


# --- the keys page ------------------------------------------------------------


def test_a_pending_merchant_creates_a_test_key_and_is_told_live_keys_wait(
    dashboard_for, merchant_pending, api
):
    client = dashboard_for(merchant_pending)
    page = client.get("/dashboard/keys/").content.decode()
    assert "live keys wait for it" in page
    assert "Generate test key" in page and "Generate key" not in page

    response = client.post("/dashboard/keys/", {"mode": "test", "test-name": "dev"})

    assert response.status_code == 200
    [plaintext] = set(TEST_KEY.findall(response.content.decode()))
    key = ApiKey.objects.get(key_hash=hash_api_key(plaintext))
    assert key.livemode is False and key.name == "dev"
    assert key.merchant == merchant_selectors.test_side_of(merchant_pending)
    assert not merchant_pending.api_keys.exists()
    works = api.get(
        f"/api/v1/merchant/{merchant_pending.public_id}/api-key/history",
        HTTP_AUTHORIZATION=f"Bearer {plaintext}",
    )
    assert works.status_code == 200
    assert client.post("/dashboard/keys/", {"name": "live"}).status_code == 403


def test_each_side_rotates_its_own_key_and_lists_its_own_history(
    dashboard_for, merchant_active
):
    live_key, _ = merchant_services.api_key_rotate(merchant=merchant_active)
    old_test, _ = merchant_services.api_key_rotate(
        merchant=merchant_active, mode="test"
    )
    client = dashboard_for(merchant_active)

    rotated = client.post("/dashboard/keys/", {"mode": "test", "test-name": ""})

    assert "Your previous test key stopped working just now." in (
        rotated.content.decode()
    )
    live_key.refresh_from_db()
    assert live_key.revoked_at is None
    page = client.get("/dashboard/keys/").content.decode()
    test_history = re.search(
        r'data-testid="test-key-history">(.*?)</table>', page, re.S
    )[1]
    assert old_test.masked_prefix in test_history
    assert 'class="badge badge-test">Test<' in test_history
    live = re.search(r'data-testid="live-key">(.*?)</table>', page, re.S)[1]
    assert live_key.masked_prefix in live and "badge-live" in live
    assert 'data-testid="key-history"' not in page  # no revoked live key


def test_an_unknown_key_mode_is_refused(dashboard_for, merchant_active):
    response = dashboard_for(merchant_active).post(
        "/dashboard/keys/", {"mode": "staging", "name": "x"}
    )

    assert response.status_code == 400
    assert not ApiKey.objects.exists()


def test_a_suspended_account_gets_no_test_key(dashboard_for, db):
    merchant = MerchantFactory(status=Merchant.Status.SUSPENDED)
    client = dashboard_for(merchant)

    page = client.get("/dashboard/keys/").content.decode()
    forced = client.post("/dashboard/keys/", {"mode": "test", "test-name": "x"})

    assert 'data-testid="test-key-refusal"' in page
    assert "Generate test key" not in page
    assert forced.status_code == 403
    assert not ApiKey.objects.exists()


# --- the settings page's webhook -------------------------------------------------


def test_the_test_webhook_url_is_saved_on_the_test_side_only(
    dashboard_for, merchant_active
):
    merchant_active.webhook_url = "https://live.example.com/hooks"
    merchant_active.save(update_fields=["webhook_url"])
    client = in_test_mode(dashboard_for(merchant_active))
    page = client.get("/dashboard/settings/").content.decode()
    assert "Test webhook" in page and "Test events go to this URL" in page

    response = client.post(
        "/dashboard/settings/",
        {"action": "webhook_url", "webhook_url": "https://test.example.com/hooks"},
    )

    assert response.status_code == 303
    side = merchant_selectors.test_side_of(merchant_active)
    merchant_active.refresh_from_db()
    assert side.webhook_url == "https://test.example.com/hooks"
    assert merchant_active.webhook_url == "https://live.example.com/hooks"
    switch(client, False)
    live_page = client.get("/dashboard/settings/").content.decode()
    assert "Live webhook" in live_page
    assert "https://live.example.com/hooks" in live_page
    assert "https://test.example.com/hooks" not in live_page
