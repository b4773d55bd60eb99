"""The six roles and the one permission table (DESIGN section 20, docs/team.md).

The dashboard and the merchant-JWT API both ask `may(role, permission)`; a page
or operation names the permission it needs, and nothing else decides. API keys
act as the merchant (every permission): only `developer` and above may make one.
"""

from django.db import models


class Role(models.TextChoices):
    OWNER = "owner"
    ADMIN = "admin"
    DEVELOPER = "developer"
    SUPPORT = "support"
    FINANCE = "finance"
    VIEWER = "viewer"


# What each permission lets a member do; docs/team.md prints this table.
PERMISSIONS: dict[str, str] = {
    "view": (
        "See the overview, plans, disputes, payment links and settings; change "
        "one's own password"
    ),
    "members": "Invite members, change their roles and refund limits, remove them",
    "ownership": "Make another member an owner, or change an owner",
    "payout_account": "Change the payout bank account",
    "settings": "Change plan, rescheduling and legal settings",
    "keys": "Make, rotate and revoke API keys",
    "webhooks": "Change the webhook URL and secret; send test events; replay events",
    "events": "See events and webhook deliveries",
    "sandbox": "Use the sandbox's test calls",
    "plans": "Refund, cancel, resume and reschedule plans; answer disputes",
    "pay_links": "Make and switch payment links",
    "wallet": "See the wallet, payouts, the payout account and settlement reports",
    "exports": "Export plans, installments and the ledger as CSV",
    "audit_log": "Read and export the audit log",
}

_ALL = frozenset(PERMISSIONS)
GRANTS: dict[str, frozenset[str]] = {
    Role.OWNER: _ALL,
    Role.ADMIN: _ALL - {"ownership"},
    Role.DEVELOPER: frozenset({"view", "keys", "webhooks", "events", "sandbox"}),
    Role.SUPPORT: frozenset({"view", "plans", "pay_links"}),
    Role.FINANCE: frozenset({"view", "wallet", "exports"}),
    # Read only: everything a member may read, nothing that changes anything.
    Role.VIEWER: frozenset({"view", "wallet", "exports", "events"}),
}
# The permissions that only read: a viewer's.
READ_ONLY = frozenset({"view", "wallet", "exports", "events"})
# A support member's refunds are capped by their own limit (Member.refund_limit);
# other roles with `plans` are not.
LIMITED_REFUNDS = frozenset({Role.SUPPORT})


def may(role: str, permission: str) -> bool:
    if permission not in PERMISSIONS:
        raise KeyError(f"no such permission: {permission}")
    return permission in GRANTS.get(role, frozenset())


def roles_with(permission: str) -> list[str]:
    return [role for role in Role.values if may(role, permission)]
