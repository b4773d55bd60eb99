"""A merchant account's settings (DESIGN sections 6, 10, 15, 17, 18, 21): what
the merchant may change, the webhook's signing secret, and how each change
reaches the account's two sides and its audit log."""

import secrets

from django.core.exceptions import ValidationError
from django.db import transaction

from . import selectors
from .audit.actors import SYSTEM, Actor
from .audit.services import audit_record, changes_between
from .models import LEGAL_SETTINGS, PLAN_SETTINGS, Merchant
from .services import test_side_for


def _locked(merchant: Merchant) -> Merchant:
    return Merchant.objects.select_for_update().get(pk=merchant.pk)


SETTINGS_FIELDS = ("webhook_url", "webhook_secret", *PLAN_SETTINGS, *LEGAL_SETTINGS)


# The audit log's action of a settings change (DESIGN 20): the webhook's URL
# and secret each their own, the rest `settings.updated`.
SETTINGS_ACTIONS = {
    "webhook_url": "webhook.url_changed",
    "webhook_secret": "webhook.secret_changed",
}


def _settings_record(
    merchant: Merchant, changed: dict, actor: Actor, secret_action: str
) -> None:
    """One row per action the change amounts to: the webhook URL, the secret,
    the other settings."""
    by_action: dict[str, dict] = {}
    for name, pair in changed.items():
        action = SETTINGS_ACTIONS.get(name, "settings.updated")
        if name == "webhook_secret":
            action = secret_action
        by_action.setdefault(action, {})[name] = pair
    for action, changes in by_action.items():
        audit_record(
            merchant=merchant,
            action=action,
            actor=actor,
            object_type="settings",
            object_id=merchant.public_id,
            changes=changes,
        )


def merchant_update_settings(
    *, merchant: Merchant, actor: Actor = SYSTEM, **changes
) -> Merchant:
    """Change the merchant-editable settings; callers validate each value.

    The installment bounds are checked against the merged result, so a PATCH that
    sends only `max_installments` cannot go below the stored minimum. What
    changed goes to the audit log in the same transaction.
    """
    unknown = set(changes) - set(SETTINGS_FIELDS) - set(TEST_WEBHOOK_SETTINGS)
    if unknown:
        raise ValueError(f"not merchant settings: {sorted(unknown)}")
    test_changes = {
        TEST_WEBHOOK_SETTINGS[name]: changes.pop(name)
        for name in list(changes)
        if name in TEST_WEBHOOK_SETTINGS
    }
    if not test_changes:
        return _settings_save(merchant, changes, actor, "webhook.secret_changed")
    with transaction.atomic():
        test_side = test_side_for(merchant)
        _settings_save(test_side, test_changes, actor, "webhook.secret_changed")
        if changes:
            return _settings_save(merchant, changes, actor, "webhook.secret_changed")
    return merchant


# The live side's names of the test side's own settings, where both are
# changed at once (the settings API): `test_webhook_url` is the test side's
# `webhook_url`.
TEST_WEBHOOK_SETTINGS = {
    "test_webhook_url": "webhook_url",
    "test_webhook_secret": "webhook_secret",
}


# The settings each side has of its own (DESIGN section 21): test events go
# to the test webhook, signed with the test secret. Every other setting is the
# account's, kept alike on both sides.
SIDE_SETTINGS = frozenset({"webhook_url", "webhook_secret"})


def _settings_save(
    merchant: Merchant, changes: dict, actor: Actor, secret_action: str
) -> Merchant:
    """Save `changes` on `merchant`'s side: its webhook settings on that side
    only, the account's settings on the live row and its test side alike.
    Rows are locked live first, so two changes cannot deadlock."""
    shared = {
        name: value for name, value in changes.items() if name not in SIDE_SETTINGS
    }
    with transaction.atomic():
        account = _locked(merchant.account)
        test_side = selectors.test_side_of(account)
        if test_side is not None:
            test_side = _locked(test_side)
        side = account if merchant.livemode else test_side
        changed = changes_between(side, changes)
        for name, value in changes.items():
            setattr(side, name, value)
        if side.min_installments > side.max_installments:
            raise ValidationError(
                {
                    "min_installments": [
                        "The minimum number of installments cannot exceed the "
                        f"maximum ({side.min_installments} > "
                        f"{side.max_installments})."
                    ]
                }
            )
        side.save(update_fields=[*changes, "updated_at"])
        other = test_side if side.livemode else account
        if shared and other is not None:
            for name, value in shared.items():
                setattr(other, name, value)
            other.save(update_fields=[*shared, "updated_at"])
        _settings_record(side, changed, actor, secret_action)
    return side


WEBHOOK_SECRET_PREFIX = "whsec_"


def webhook_secret_regenerate(
    *, merchant: Merchant, actor: Actor = SYSTEM
) -> tuple[Merchant, str]:
    """Replace the webhook signing secret with a new random one.

    Returns the merchant and the plaintext secret, which the caller shows once; it is
    stored encrypted and never displayed in full again.
    """
    secret = f"{WEBHOOK_SECRET_PREFIX}{secrets.token_urlsafe(32)}"
    merchant = _settings_save(
        merchant, {"webhook_secret": secret}, actor, "webhook.secret_regenerated"
    )
    return merchant, secret
