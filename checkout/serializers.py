import re

from django.conf import settings
from rest_framework import serializers

from config.api.formats import iso_date, iso_utc
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
from config.text import no_control_characters
from installments.plans import rules

CURRENCY_CODE = re.compile(r"[A-Z]{3}")
_currency_code = matching(
    CURRENCY_CODE, "Enter a three-letter ISO 4217 currency code in capitals, e.g. NGN."
)


class CurrencyField(StrictCharField):
    """A well-formed ISO 4217 code; whether it is supported is a business rule."""

    def to_internal_value(self, data):
        return _currency_code(super().to_internal_value(data))


class SessionCreateInput(StrictSerializer):
    merchant_id = StrictCharField(max_length=40)
    amount = StrictIntegerField()
    currency = CurrencyField(max_length=3)
    title = StrictCharField(max_length=200, validators=[no_control_characters])
    order_reference = StrictCharField(
        max_length=100, validators=[no_control_characters]
    )
    customer_email = StrictEmailField(
        max_length=254, required=False, allow_blank=True, allow_null=True
    )

    def validate_customer_email(self, value):
        return value or ""


class PreferredDayField(serializers.Field):
    """A monthly plan's preferred day (DESIGN 15): a JSON integer 1-28 or the
    string "last_working_day"; null or left out is none. Whether the schedule
    takes one is the plan rules' to say (400 `invalid_preferred_day`)."""

    default_error_messages = {
        "invalid": "Enter a day of the month from 1 to 28 (a JSON integer), or "
        '"last_working_day".'
    }

    def to_internal_value(self, data):
        if data == rules.LAST_WORKING_DAY:
            return data
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        if data not in rules.PREFERRED_DAYS:
            self.fail("invalid")
        return data

    def to_representation(self, value):
        return value


def preferred_day_field() -> PreferredDayField:
    return PreferredDayField(required=False, allow_null=True)


class PreviewInput(StrictSerializer):
    merchant_id = StrictCharField(max_length=40)
    customer_id = StrictCharField(max_length=40, required=False, allow_null=True)
    amount = StrictIntegerField()
    schedule_type = StrictCharField(max_length=32)
    installment_count = StrictIntegerField()
    preferred_day = preferred_day_field()


class KeyFactsQuery(serializers.Serializer):
    """`?schedule_type=&installment_count=&preferred_day=&customer_id=` of
    `GET .../key-facts`: the preview's choices, as a query spells them."""

    schedule_type = serializers.CharField(max_length=32)
    installment_count = serializers.IntegerField()
    preferred_day = serializers.CharField(max_length=32, required=False)
    customer_id = serializers.CharField(max_length=40, required=False)

    def validate_preferred_day(self, value):
        """A day of the month, 1-28, or `last_working_day` (as the JSON field
        takes them; the plan rules say whether the schedule takes one)."""
        day = int(value) if value.isdigit() else value
        return PreferredDayField().run_validation(day)

    @classmethod
    def validated(cls, query) -> dict:
        # A plain dict: given a QueryDict, DRF reads `?preferred_day=` as absent.
        serializer = cls(data={k: v for k, v in query.dict().items() if v != ""})
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


def session_created_output(session) -> dict:
    return {
        "session_token": session.token,
        "expires_at": iso_utc(session.expires_at),
        "livemode": session.merchant.livemode,
    }


def session_public_output(session) -> dict:
    """What the widget may show to anyone holding the token: no secrets, no PII."""
    return {
        "title": session.title,
        "amount": session.amount,
        "currency": session.currency,
        "merchant_name": session.merchant.business_name,
        "status": session.status_at(),
        "expires_at": iso_utc(session.expires_at),
        # The widget shows a test session as one (docs/test-mode.md).
        "livemode": session.merchant.livemode,
    }


def preview_output(terms) -> dict:
    return {
        "schedule_type": terms.schedule_type,
        "installment_count": terms.installment_count,
        "deposit_amount": terms.deposit_amount,
        "installment_amounts": list(terms.installment_amounts),
        "due_dates": [iso_date(day) for day in terms.due_dates],
        "total_amount": terms.total_amount,
    }


class CompleteInput(StrictSerializer):
    schedule_type = StrictCharField(max_length=32)
    installment_count = StrictIntegerField()
    payment_method_id = StrictCharField(max_length=40)
    preferred_day = preferred_day_field()
    # The customer agreed to the key facts (DESIGN section 18); anything but
    # true is refused by the completion with 422 `terms_not_accepted`.
    terms_accepted = StrictBooleanField(required=False)


class PaymentLinkCreateInput(StrictSerializer):
    merchant_id = StrictCharField(max_length=40)
    title = StrictCharField(max_length=200, validators=[no_control_characters])
    amount = StrictIntegerField()
    currency = CurrencyField(max_length=3)
    description = StrictCharField(
        max_length=1000, required=False, allow_blank=True, allow_null=True
    )
    redirect_url = StrictURLField(
        max_length=2000, required=False, allow_blank=True, allow_null=True
    )

    def validate_description(self, value):
        return value or ""

    def validate_redirect_url(self, value):
        return web_url(value, "redirect_url must be an http(s) URL.") if value else ""


class PaymentLinkToggleInput(StrictSerializer):
    is_active = StrictBooleanField()


def public_link_url(link) -> str:
    return f"{settings.CONSUMER_URL}/l/{link.slug}"


def payment_link_output(link) -> dict:
    """camelCase, as the spec's payment link table."""
    return {
        "id": link.public_id,
        "slug": link.slug,
        "publicUrl": public_link_url(link),
        "merchantId": link.merchant.api_id,
        "livemode": link.merchant.livemode,
        "title": link.title,
        "description": link.description or None,
        "amount": {"amount": link.amount, "currency": link.currency},
        "redirectUrl": link.redirect_url or None,
        "isActive": link.is_active,
        "createdAt": iso_utc(link.created_at),
        "updatedAt": iso_utc(link.updated_at),
    }
