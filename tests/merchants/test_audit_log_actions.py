"""Every action of the audit log's table writes exactly one row, with its actor,
and no row ever holds a secret (DESIGN 20, issue 30)."""

import json

import pytest

from merchants.audit.actions import ACTIONS
from merchants.audit.models import AuditEntry
from merchants.team.roles import PERMISSIONS, READ_ONLY

from .audit_actions import PERFORMERS, setting_make

pytestmark = pytest.mark.django_db


def test_every_action_has_a_way_to_perform_it():
    assert set(PERFORMERS) == set(ACTIONS)


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_each_action_writes_exactly_one_row_with_its_actor(
    action, merchant_with_key, committed
):
    s = setting_make(merchant_with_key)
    before = set(AuditEntry.objects.values_list("pk", flat=True))

    with committed():
        kind, actor_id = PERFORMERS[action](s)

    new = AuditEntry.objects.exclude(pk__in=before)
    rows = [row for row in new if row.action == action]
    assert len(rows) == 1, [(r.action, r.actor_id) for r in new]
    [row] = rows
    assert (row.actor_kind, row.actor_id) == (kind, actor_id)
    assert row.merchant == s.merchant


# One merchant through every action: its own changes first, then the password
# (the API login needs the first one) and the key's rotation (the others use
# the key), then staff's (suspension last), then two-factor sign-in (the API
# login would ask for a code after it).
LATE = ("password.", "merchant.", "api_key.rotated", "two_factor.")
SCAN_ORDER = [
    *(a for a in PERFORMERS if not a.startswith(LATE)),
    "password.changed",
    "password.reset",
    "api_key.rotated",
    *(a for a in PERFORMERS if a.startswith("merchant.") and a != "merchant.suspended"),
    "merchant.suspended",
    *(a for a in PERFORMERS if a.startswith("two_factor.")),
]


def test_no_row_written_by_any_action_holds_a_secret(merchant_with_key, committed):
    s = setting_make(merchant_with_key)
    assert sorted(SCAN_ORDER) == sorted(ACTIONS)
    with committed():
        for action in SCAN_ORDER:
            s.owner = merchant_with_key
            PERFORMERS[action](s)
    rows = list(AuditEntry.objects.all())
    assert {row.action for row in rows} >= set(ACTIONS)

    stored = json.dumps(
        [
            [r.actor_id, r.actor_label, r.object_id, r.changes, r.user_agent]
            for r in rows
        ]
    )
    for secret in s.secrets:
        assert secret not in stored
    secret_changes = [r.changes for r in rows if "webhook_secret" in r.changes]
    assert secret_changes and all(
        c["webhook_secret"] == "(changed)" for c in secret_changes
    )


# Every permission of the team's table that changes something, and the audit
# log's actions that record its changes (the walk above shows each writes its
# row). `sandbox` is left out: its calls act on the sandbox processor's test
# world (deciding a test dispute, settling a test transfer), not on the account.
RECORDED_BY = {
    "members": {
        "member.invited",
        "member.invitation_withdrawn",
        "member.role_changed",
        "member.removed",
    },
    "ownership": {"member.role_changed", "two_factor.team_required"},
    "payout_account": {"payout_account.changed"},
    "settings": {"settings.updated"},
    "keys": {"api_key.created", "api_key.rotated"},
    "webhooks": {
        "webhook.url_changed",
        "webhook.secret_changed",
        "webhook.secret_regenerated",
        "webhook.event_replayed",
    },
    "plans": {
        "refund.created",
        "refund.refused_over_limit",
        "plan.cancelled",
        "plan.rescheduled",
        "plan.resumed",
        "dispute.answered",
        "dispute.accepted",
    },
    "pay_links": {
        "payment_link.created",
        "payment_link.activated",
        "payment_link.deactivated",
    },
}


def test_every_permission_that_changes_something_has_its_actions_recorded():
    changing = set(PERMISSIONS) - READ_ONLY - {"sandbox", "audit_log"}
    assert set(RECORDED_BY) == changing
    for permission, actions in RECORDED_BY.items():
        assert actions <= set(ACTIONS), permission
