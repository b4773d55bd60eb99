from rest_framework import serializers

from config.api.formats import iso_utc
from config.api.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictEmailField,
    StrictIntegerField,
    StrictSerializer,
    StrictURLField,
    matching,
    web_url,
)
from config.destinations import UrlNotAllowed, check_url, refusal_message
from config.text import no_control_characters

from .models import (
    BUSINESS_NAME_MAX_LENGTH,
    FCCPC_NUMBER_MAX_LENGTH,
    LEGAL_SETTINGS,
    LEGAL_TEXT_MAX_LENGTH,
    MAX_INSTALLMENTS,
    MAX_RESCHEDULE_DAYS,
    MAX_RESCHEDULES,
    REFUND_POLICY_MAX_LENGTH,
    RELEASE_RULE_PATTERN,
    SCHEDULE_TYPES,
    SUPPORT_PHONE_MAX_LENGTH,
    SUPPORT_PHONE_PATTERN,
)
from .selectors import missing_legal_settings, test_side_of


class RegisterInput(StrictSerializer):
    email = StrictEmailField(max_length=254)
    password = StrictCharField(max_length=128, trim_whitespace=False)
    business_name = StrictCharField(
        min_length=2,
        max_length=BUSINESS_NAME_MAX_LENGTH,
        validators=[no_control_characters],
    )
    business_url = StrictURLField(max_length=200)

    def validate_business_url(self, value):
        # It becomes the origin allowed to frame the hosted checkout pages.
        return web_url(value, "The business URL must start with http:// or https://.")


class LoginInput(StrictSerializer):
    email = StrictEmailField(max_length=254)
    password = StrictCharField(max_length=128, trim_whitespace=False)


class LoginMfaInput(StrictSerializer):
    mfa_token = StrictCharField(max_length=500)
    code = StrictCharField(max_length=32)


KEY_MODES = ("live", "test")


class RotateKeyInput(StrictSerializer):
    name = StrictCharField(max_length=100, required=False, allow_blank=True, default="")
    # Which side's key (DESIGN section 21): a `service_live_sk_` key or a
    # `service_test_sk_` one; each side has its own key in use.
    mode = serializers.ChoiceField(
        choices=KEY_MODES,
        default="live",
        error_messages={"invalid_choice": 'mode is "live" or "test".'},
    )


def merchant_output(merchant) -> dict:
    return {
        "merchantId": merchant.api_id,
        "livemode": merchant.livemode,
        "status": merchant.status,
        "email": merchant.email,
    }


def revoked_key_output(key) -> dict:
    return {
        "name": key.name,
        "mode": "live" if key.livemode else "test",
        "livemode": key.livemode,
        "prefix": key.masked_prefix,
        "created_at": iso_utc(key.created_at),
        "revoked_at": iso_utc(key.revoked_at),
    }


def _legal_text(max_length: int) -> StrictCharField:
    return StrictCharField(
        max_length=max_length,
        required=False,
        allow_blank=True,
        validators=[no_control_characters],
    )


_phone_like = matching(
    SUPPORT_PHONE_PATTERN,
    "Enter a phone number: digits, with an optional leading + and spaces, "
    "hyphens or brackets (7 to 15 digits).",
)


class SettingsInput(StrictSerializer):
    """PATCH body of `/merchant/{id}/settings`: every field optional."""

    webhook_url = StrictURLField(max_length=500, required=False, allow_blank=True)
    webhook_secret = StrictCharField(
        min_length=16, max_length=200, required=False, trim_whitespace=False
    )
    # The test side's webhook (DESIGN section 21): test events go only there.
    test_webhook_url = StrictURLField(max_length=500, required=False, allow_blank=True)
    test_webhook_secret = StrictCharField(
        min_length=16, max_length=200, required=False, trim_whitespace=False
    )
    allowed_schedule_types = serializers.ListField(
        child=serializers.ChoiceField(choices=SCHEDULE_TYPES),
        min_length=1,
        required=False,
        error_messages={"min_length": "Choose at least one schedule type."},
    )
    min_installments = StrictIntegerField(
        min_value=1, max_value=MAX_INSTALLMENTS, required=False
    )
    max_installments = StrictIntegerField(
        min_value=1, max_value=MAX_INSTALLMENTS, required=False
    )
    min_deposit_percent = StrictIntegerField(min_value=0, max_value=90, required=False)
    release_rule = StrictCharField(max_length=32, required=False)
    partial_collection_min_percent = StrictIntegerField(
        min_value=1, max_value=99, required=False, allow_null=True
    )
    customer_reschedules_allowed = StrictIntegerField(
        min_value=0, max_value=MAX_RESCHEDULES, required=False
    )
    reschedule_max_days = StrictIntegerField(
        min_value=1, max_value=MAX_RESCHEDULE_DAYS, required=False
    )
    manual_collection = StrictBooleanField(required=False)
    # The key facts' merchant details (DESIGN section 18): customers read them,
    # so one line each; empty clears one.
    legal_name = _legal_text(LEGAL_TEXT_MAX_LENGTH)
    support_email = StrictEmailField(max_length=254, required=False, allow_blank=True)
    support_phone = _legal_text(SUPPORT_PHONE_MAX_LENGTH)
    fccpc_registration_number = _legal_text(FCCPC_NUMBER_MAX_LENGTH)
    refund_policy = _legal_text(REFUND_POLICY_MAX_LENGTH)

    def validate_support_phone(self, value):
        return value and _phone_like(value)

    def validate_webhook_url(self, value):
        """Saving refuses what sending would (the test endpoint's rule); an empty
        value clears the URL."""
        if value:
            try:
                check_url(value)
            except UrlNotAllowed as error:
                raise serializers.ValidationError(refusal_message(error)) from None
        return value

    def validate_test_webhook_url(self, value):
        return self.validate_webhook_url(value)

    def validate_allowed_schedule_types(self, value):
        if not isinstance(self.initial_data.get("allowed_schedule_types"), list):
            raise serializers.ValidationError("Expected a list of schedule types.")
        return sorted(set(value), key=SCHEDULE_TYPES.index)

    def validate_release_rule(self, value):
        if not RELEASE_RULE_PATTERN.match(value):
            raise serializers.ValidationError(
                "Use on_deposit, on_completion or after_installments:N (N from 1 "
                "to 12)."
            )
        return value


def settings_output(merchant) -> dict:
    """The account's settings, read from its live row; the test webhook's from
    its test side (empty until there is one)."""
    test_side = test_side_of(merchant)
    return {
        "merchant_id": merchant.api_id,
        "livemode": merchant.livemode,
        "webhook_url": merchant.webhook_url,
        "webhook_secret_set": bool(merchant.webhook_secret),
        "test_webhook_url": test_side.webhook_url if test_side else "",
        "test_webhook_secret_set": bool(test_side and test_side.webhook_secret),
        "payout_bank_code": merchant.payout_bank_code,
        "payout_account_number": merchant.payout_account_number,
        "payout_account_name": merchant.payout_account_name,
        "allowed_schedule_types": merchant.allowed_schedule_types,
        "min_installments": merchant.min_installments,
        "max_installments": merchant.max_installments,
        "min_deposit_percent": merchant.min_deposit_percent,
        "release_rule": merchant.release_rule,
        "partial_collection_min_percent": merchant.partial_collection_min_percent,
        "customer_reschedules_allowed": merchant.customer_reschedules_allowed,
        "reschedule_max_days": merchant.reschedule_max_days,
        "manual_collection": merchant.manual_collection,
        **{name: getattr(merchant, name) for name in LEGAL_SETTINGS},
        "legal_settings_missing": missing_legal_settings(merchant),
    }
