"""Dashboard forms. HTML in, typed values out; the rules live in one place.

The sign-up, settings and key forms parse what a browser sends (strings,
checkboxes) and then validate with the API's own input serializers
(`serializers.RegisterInput`, `serializers.SettingsInput`,
`serializers.RotateKeyInput`), so the dashboard and the API (registration,
`PATCH .../settings`) accept and refuse exactly the same values with the same
messages.
"""

from django import forms
from django.contrib.auth import password_validation
from django.core.exceptions import ValidationError

from config.web.forms import SetPasswordForm, validate_with_serializer

from ..models import SCHEDULE_TYPES
from ..selectors import missing_legal_settings
from ..serializers import RegisterInput, RotateKeyInput, SettingsInput


class SignInForm(forms.Form):
    email = forms.EmailField(
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )
    password = forms.CharField(
        max_length=128,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )


class SignUpForm(forms.Form):
    """What registration takes. The API's `RegisterInput` alone decides what is
    valid (every field is optional here, so that an empty one gets the API's
    message), and the registration service checks the password and whether the
    e-mail address is taken."""

    business_name = forms.CharField(
        required=False,
        strip=False,
        help_text="As your customers know it: our e-mails and text messages to "
        "them name it. One line.",
        widget=forms.TextInput(
            attrs={"autocomplete": "organization", "autofocus": True}
        ),
    )
    business_url = forms.CharField(
        required=False,
        strip=False,
        label="Your website",
        help_text="Your shop's address, e.g. https://myshop.ng: our checkout may "
        "be shown inside its pages.",
        widget=forms.URLInput(attrs={"autocomplete": "url"}),
    )
    email = forms.CharField(
        required=False,
        strip=False,
        label="E-mail",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        required=False,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields[
            "password"
        ].help_text = password_validation.password_validators_help_text_html()

    def clean(self):
        cleaned = super().clean()
        self.registration = validate_with_serializer(self, RegisterInput, cleaned)
        return cleaned


class PasswordChangeForm(SetPasswordForm):
    current_password = forms.CharField(
        label="Current password",
        max_length=128,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    field_order = ["current_password", "new_password", "new_password_confirm"]

    def clean_current_password(self):
        password = self.cleaned_data["current_password"]
        if not self.account.check_password(password):
            raise ValidationError("Your current password is incorrect.")
        return password


class PasswordResetRequestForm(forms.Form):
    email = forms.EmailField(
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email", "autofocus": True}),
    )


class ApiKeyForm(forms.Form):
    name = forms.CharField(
        required=False,
        strip=False,
        label="Key name (optional)",
        help_text="A label to recognise the key by, e.g. “Production server”.",
    )

    def clean(self):
        cleaned = super().clean()
        if "name" in cleaned:
            validated = validate_with_serializer(
                self, RotateKeyInput, {"name": cleaned["name"]}
            )
            if validated is not None:
                cleaned["name"] = validated["name"]
        return cleaned


class WebhookUrlForm(forms.Form):
    webhook_url = forms.CharField(
        required=False,
        label="Webhook URL",
        help_text="Where we POST signed events. Leave empty to stop deliveries.",
        widget=forms.URLInput(attrs={"placeholder": "https://example.com/webhooks"}),
    )

    def clean(self):
        cleaned = super().clean()
        if "webhook_url" in cleaned:
            self.changes = validate_with_serializer(
                self, SettingsInput, {"webhook_url": cleaned["webhook_url"]}
            )
        return cleaned


class LegalSettingsForm(forms.Form):
    """The merchant's details in the key facts customers agree to (DESIGN
    section 18); the API's `SettingsInput` decides what is valid."""

    legal_name = forms.CharField(
        required=False,
        strip=False,
        label="Legal name",
        help_text="As registered (CAC). Without it, customers see your business name.",
        widget=forms.TextInput(attrs={"autocomplete": "organization"}),
    )
    support_email = forms.CharField(
        required=False,
        strip=False,
        label="Support e-mail",
        help_text="Where customers reach you. Without it, your account's e-mail.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    support_phone = forms.CharField(
        required=False,
        strip=False,
        label="Support phone",
        help_text="E.g. +234 803 123 4567.",
        widget=forms.TextInput(attrs={"autocomplete": "tel", "inputmode": "tel"}),
    )
    fccpc_registration_number = forms.CharField(
        required=False,
        strip=False,
        label="FCCPC registration number",
        help_text="Your digital lending registration with the FCCPC.",
    )
    refund_policy = forms.CharField(
        required=False,
        strip=False,
        label="Cancellation and refund policy",
        help_text="In your words, one paragraph (no line breaks), up to 2,000 "
        "characters. Without it, customers are told to ask you before they pay.",
        widget=forms.Textarea(attrs={"rows": 4}),
    )

    @classmethod
    def initial_for(cls, merchant) -> dict:
        return {name: getattr(merchant, name) for name in cls.base_fields}

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            self.changes = validate_with_serializer(
                self, SettingsInput, {name: cleaned[name] for name in self.fields}
            )
        return cleaned


def legal_missing(merchant) -> list[str]:
    """The labels of the key facts' details still missing, for the notice."""
    return [
        LegalSettingsForm.base_fields[name].label
        for name in missing_legal_settings(merchant)
    ]


RELEASE_ON_DEPOSIT = "on_deposit"
RELEASE_AFTER_INSTALLMENTS = "after_installments"
RELEASE_ON_COMPLETION = "on_completion"


class PlanSettingsForm(forms.Form):
    """Plan configuration (DESIGN section 6) and release rule (section 7)."""

    allowed_schedule_types = forms.MultipleChoiceField(
        required=False,
        choices=[(kind, kind.capitalize()) for kind in SCHEDULE_TYPES],
        widget=forms.CheckboxSelectMultiple,
        label="Allowed schedules",
    )
    min_installments = forms.IntegerField(
        label="Minimum installments",
        help_text="Installments after the deposit, at least 1.",
    )
    max_installments = forms.IntegerField(
        label="Maximum installments",
        help_text="At most 12; a customer's tier may allow fewer.",
    )
    min_deposit_percent = forms.IntegerField(
        label="Minimum deposit (%)",
        help_text="0 to 90; the customer's tier may ask for more.",
    )
    release_rule = forms.ChoiceField(
        label="Release money to your wallet",
        choices=[
            (RELEASE_ON_DEPOSIT, "When the deposit is paid"),
            (RELEASE_AFTER_INSTALLMENTS, "After N installments are paid"),
            (RELEASE_ON_COMPLETION, "When the plan is fully paid"),
        ],
    )
    release_after = forms.IntegerField(
        required=False,
        label="Number of installments",
        help_text="The N of “after N installments are paid”, 1 to 12.",
    )
    partial_collection_min_percent = forms.IntegerField(
        required=False,
        label="Partial collection at the last retry (%)",
        help_text="Empty: off. 1 to 99: when the last retry of an installment is "
        "declined for lack of funds, collect what the customer has if it is at "
        "least this share of what is owed; the rest is tried once more a week "
        "later.",
    )
    manual_collection = forms.BooleanField(
        required=False,
        label="Manual collection",
        help_text="Customers may pay the deposit by bank transfer or USSD and "
        "finish without a card or bank mandate; they then pay each installment "
        "themselves when told it is due. Applies to new plans only.",
    )

    @classmethod
    def initial_for(cls, merchant) -> dict:
        after = merchant.release_after_installments
        return {
            "allowed_schedule_types": merchant.allowed_schedule_types,
            "min_installments": merchant.min_installments,
            "max_installments": merchant.max_installments,
            "min_deposit_percent": merchant.min_deposit_percent,
            "release_rule": (
                RELEASE_AFTER_INSTALLMENTS if after else merchant.release_rule
            ),
            "release_after": after,
            "partial_collection_min_percent": merchant.partial_collection_min_percent,
            "manual_collection": merchant.manual_collection,
        }

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        rule = cleaned["release_rule"]
        if rule == RELEASE_AFTER_INSTALLMENTS:
            if cleaned.get("release_after") is None:
                self.add_error(
                    "release_after",
                    "Enter after how many paid installments (1 to 12) the money "
                    "is released.",
                )
                return cleaned
            rule = f"{rule}:{cleaned['release_after']}"
        self.changes = validate_with_serializer(
            self,
            SettingsInput,
            {
                "allowed_schedule_types": cleaned["allowed_schedule_types"],
                "min_installments": cleaned["min_installments"],
                "max_installments": cleaned["max_installments"],
                "min_deposit_percent": cleaned["min_deposit_percent"],
                "release_rule": rule,
                "partial_collection_min_percent": cleaned.get(
                    "partial_collection_min_percent"
                ),
                "manual_collection": cleaned.get("manual_collection", False),
            },
            field_for={
                "release_rule": (
                    "release_after"
                    if cleaned["release_rule"] == RELEASE_AFTER_INSTALLMENTS
                    else "release_rule"
                )
            },
        )
        return cleaned


class RescheduleSettingsForm(forms.Form):
    """What customers may do with their due dates (DESIGN section 15); the
    merchant may always move any unpaid installment."""

    customer_reschedules_allowed = forms.IntegerField(
        label="Due dates a customer may move per plan",
        help_text="0 to 12; 0 stops customers from rescheduling.",
    )
    reschedule_max_days = forms.IntegerField(
        label="Days later, at most",
        help_text="1 to 60: how far a customer may move one due date.",
    )

    @classmethod
    def initial_for(cls, merchant) -> dict:
        return {name: getattr(merchant, name) for name in cls.base_fields}

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            self.changes = validate_with_serializer(
                self, SettingsInput, {name: cleaned[name] for name in self.fields}
            )
        return cleaned


# The settings forms whose values are saved as they are: (form, its name in
# the settings page's context, what the page says once saved), by the action
# posted.
SETTINGS_FORMS = {
    "reschedules": (
        RescheduleSettingsForm,
        "reschedule_form",
        "Rescheduling limits saved.",
    ),
    "legal": (LegalSettingsForm, "legal_form", "Key facts details saved."),
}
