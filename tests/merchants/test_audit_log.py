"""The audit log (DESIGN 20): its rows, who they name, what they keep, the API
list and the dashboard page."""

from datetime import timedelta

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.test import RequestFactory
from django.utils import timezone

from merchants.audit.actors import SYSTEM, actor_from_request
from merchants.audit.models import AuditEntry
from merchants.audit.services import audit_record
from merchants.models import ApiKey

from ..conftest import bearer, merchant_jwt

pytestmark = pytest.mark.django_db

LIST = "/api/v1/audit-log"


def _record(merchant, action="signed_in", **fields) -> AuditEntry:
    return audit_record(merchant=merchant, action=action, actor=SYSTEM, **fields)


# --- append-only, in Python on every database ----------------------------------------


def test_a_stored_entry_refuses_to_be_saved_again(merchant_active):
    entry = _record(merchant_active)
    entry.action = "password.changed"

    with pytest.raises(ValueError, match="append-only"):
        entry.save()


def test_an_entry_and_a_queryset_of_entries_refuse_to_be_deleted(merchant_active):
    entry = _record(merchant_active)

    with pytest.raises(ValueError, match="append-only"):
        entry.delete()
    with pytest.raises(ValueError, match="append-only"):
        AuditEntry.objects.filter(pk=entry.pk).delete()
    with pytest.raises(ValueError, match="audit_retention_run"):
        AuditEntry.objects.filter(pk=entry.pk).purge()
    assert AuditEntry.objects.filter(pk=entry.pk).exists()


def test_an_action_not_in_the_table_is_refused(merchant_active):
    with pytest.raises(ValueError, match="not an audit action"):
        _record(merchant_active, action="made.up")


def test_retention_removes_only_old_rows_on_every_database(merchant_active, settings):
    from merchants.audit.services import audit_retention_run

    settings.AUDIT_RETENTION_DAYS = 30
    with time_machine.travel(timezone.now() - timedelta(days=31)):
        _record(merchant_active)
    kept = _record(merchant_active)

    assert audit_retention_run() == 1
    assert list(AuditEntry.objects.all()) == [kept]


# --- what a row keeps ----------------------------------------------------------------


def test_a_secret_field_is_recorded_as_changed_without_its_values(merchant_active):
    entry = _record(
        merchant_active,
        action="settings.updated",
        changes={
            "webhook_secret": ["whsec_old_value", "whsec_new_value"],
            "totp_secret": ["a", "b"],
            "min_installments": [1, 2],
        },
    )

    assert entry.changes == {
        "webhook_secret": "(changed)",
        "totp_secret": "(changed)",
        "min_installments": [1, 2],
    }


def test_the_user_agent_is_one_line_without_control_characters_and_cut(
    merchant_active,
):
    request = RequestFactory().get(
        "/", HTTP_USER_AGENT="Evil\r\nX-Injected: 1\x00" + "a" * 400
    )
    entry = _record(merchant_active, request=request)

    assert "\n" not in entry.user_agent and "\x00" not in entry.user_agent
    assert entry.user_agent.startswith("Evil X-Injected: 1")
    assert len(entry.user_agent) <= 300
    assert entry.ip == "127.0.0.1"


# --- who -----------------------------------------------------------------------------


def test_the_actor_of_a_member_comes_first(merchant_active):
    request = RequestFactory().get("/")
    request.member = type("M", (), {"public_id": "mem_1", "email": "a@b.ng"})()
    request.merchant = merchant_active

    actor = actor_from_request(request)

    assert (actor.kind, actor.id, actor.label) == ("member", "mem_1", "a@b.ng")


def test_an_api_key_is_named_by_its_masked_prefix_never_the_key(merchant_with_key):
    key = ApiKey.objects.get(merchant=merchant_with_key.merchant)
    request = RequestFactory().get("/")
    request.auth = key

    actor = actor_from_request(request)

    assert (actor.kind, actor.id) == ("api_key", key.masked_prefix)
    assert merchant_with_key.api_key not in repr(actor)


def test_a_staff_user_is_named_by_username(db):
    request = RequestFactory().get("/")
    request.user = get_user_model().objects.create_user("ops", is_staff=True)

    assert actor_from_request(request).id == "ops"


# --- GET /api/v1/audit-log -----------------------------------------------------------


def test_the_api_lists_only_my_entries_newest_first_in_the_list_envelope(
    api, merchant_with_key, other_merchant_with_key
):
    me = merchant_with_key.merchant
    _record(me)
    _record(other_merchant_with_key.merchant)

    response = api.get(LIST, **merchant_with_key.headers)

    body = response.json()
    assert response.status_code == 200
    assert body["ok"] is True
    # The fixture's first key, then the sign-in: newest first.
    assert [row["action"] for row in body["data"]] == ["signed_in", "api_key.created"]
    assert body["total"] == 2
    assert body["data"][1]["actor"] == {
        "kind": "system",
        "id": "system",
        "label": "System",
    }


def test_the_api_filters_by_action_actor_and_time(api, merchant_active):
    jwt = bearer(merchant_jwt(merchant_active))
    with time_machine.travel("2026-01-10T12:00:00Z"):
        _record(merchant_active, action="password.changed")
    with time_machine.travel("2026-03-10T12:00:00Z"):
        _record(merchant_active)

    def ids(query):
        response = api.get(f"{LIST}?{query}", **jwt)
        assert response.status_code == 200, response.content
        return [row["action"] for row in response.json()["data"]]

    assert ids("action=password.changed") == ["password.changed"]
    assert ids("actor=system") == ["signed_in", "password.changed"]
    assert ids("actor=nobody@x.ng") == []
    assert ids("since=2026-02-01") == ["signed_in"]
    assert ids("until=2026-02-01T00:00:00Z") == ["password.changed"]


@pytest.mark.parametrize(
    "query",
    [
        "action=made.up",
        "since=yesterday",
        "since=2026-02-01T00:00:00",
        "actor=a%00b",
    ],
)
def test_the_api_refuses_a_bad_filter_with_a_400(api, merchant_active, query):
    response = api.get(f"{LIST}?{query}", **bearer(merchant_jwt(merchant_active)))

    assert response.status_code == 400


def test_the_api_answers_csv(api, merchant_active):
    _record(merchant_active, action="settings.updated", changes={"x": [1, 2]})

    response = api.get(f"{LIST}?format=csv", **bearer(merchant_jwt(merchant_active)))

    text = b"".join(response.streaming_content).decode()
    assert response.status_code == 200
    assert text.splitlines()[0].startswith("id,created_at,action,actor_kind")
    assert "settings.updated" in text


# --- the dashboard page --------------------------------------------------------------


def test_the_dashboard_page_lists_filters_and_exports(dashboard_for, merchant_active):
    client = dashboard_for(merchant_active)

    page = client.get("/dashboard/audit-log/").content.decode()
    assert 'data-action="signed_in"' in page
    assert 'href="/dashboard/audit-log/"' in page  # the navigation's link

    filtered = client.get("/dashboard/audit-log/?action=password.changed")
    assert 'data-testid="audit-log-empty"' in filtered.content.decode()
    bad = client.get("/dashboard/audit-log/?since=nonsense")
    assert bad.status_code == 200

    download = client.get("/dashboard/audit-log.csv?action=signed_in")
    rows = b"".join(download.streaming_content).decode().splitlines()
    assert download["Content-Type"].startswith("text/csv")
    assert len(rows) == 2 and ",signed_in," in rows[1]


def test_the_dashboard_page_needs_a_sign_in(client):
    assert client.get("/dashboard/audit-log/").status_code == 302
