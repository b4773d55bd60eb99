"""Every action the audit log records, with what it means (the merchant guide
lists them, the dashboard's filter offers them). `audit_record` refuses one
that is not here; a test performs each and finds exactly one row."""

ACTIONS: dict[str, str] = {
    "signed_in": "Signed in (dashboard or API login).",
    "password.changed": "Changed their own password.",
    "password.reset": "Set a new password through a reset link.",
    "settings.updated": "Changed plan, rescheduling or legal settings.",
    "webhook.url_changed": "Changed the webhook URL.",
    "webhook.secret_changed": "Set the webhook signing secret.",
    "webhook.secret_regenerated": "Generated a new webhook signing secret.",
    "api_key.created": "Generated the first API key.",
    "api_key.rotated": "Generated a new API key, revoking the previous one.",
    "payout_account.changed": "Changed the payout bank account.",
    "merchant.approved": "Staff approved the account.",
    "merchant.suspended": "Staff suspended the account.",
    "merchant.api_access_enabled": "Staff enabled API access.",
    "merchant.api_access_disabled": "Staff disabled API access.",
    "merchant.rate_plan_changed": "Staff changed the account's rate plan.",
    "merchant.updated_by_staff": "Staff edited the account's details.",
    "payment_link.created": "Created a payment link.",
    "payment_link.activated": "Turned a payment link on.",
    "payment_link.deactivated": "Turned a payment link off.",
    "plan.cancelled": "Cancelled a payment plan.",
    "refund.created": "Refunded a payment plan.",
    "plan.rescheduled": "Moved an installment's due date (the merchant's move).",
    "plan.resumed": "Resumed a plan's collection after a lost dispute.",
    "dispute.answered": "Answered a dispute with evidence.",
    "dispute.accepted": "Accepted a dispute.",
    "webhook.event_replayed": "Sent an event to the webhook URL again.",
    "refund.refused_over_limit": (
        "Tried a refund above their refund limit (a support member): refused."
    ),
    "member.invited": "Invited someone to the team, with a role.",
    "member.invitation_withdrawn": "Withdrew an open invitation.",
    "member.joined": "Joined the team through an invitation.",
    "member.role_changed": "Changed a member's role or refund limit.",
    "member.removed": "Removed a member from the team.",
    "two_factor.enabled": "Turned on their own two-factor sign-in.",
    "two_factor.disabled": "Turned off their own two-factor sign-in.",
    "two_factor.backup_codes_renewed": "Made new backup codes (the old stop working).",
    "two_factor.team_required": (
        "Required two-factor sign-in of every member, or stopped requiring it."
    ),
}

# Fields whose values never reach a row: a change of one is "(changed)".
SECRET_FIELDS = frozenset(
    {
        "password",
        "webhook_secret",
        "key_hash",
        "api_key",
        "raw_key",
        "plaintext",
        "totp_secret",
        "backup_codes",
    }
)
# And any field whose name says it holds one.
SECRET_WORDS = ("password", "secret", "token", "key_hash", "backup_code", "otp")
SECRET_CHANGED = "(changed)"


def is_secret(field: str) -> bool:
    name = field.lower()
    return name in SECRET_FIELDS or any(word in name for word in SECRET_WORDS)
