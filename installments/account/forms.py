"""Forms of the customer's payment method pages under `/account/` (the sign-in
and registration forms are payments.customers.forms).

Where the API has an input serializer for the same thing, the form validates with
it (`config.web.forms.SerializerForm`), so a page and the API accept and refuse
exactly the same values with the same messages.
"""

from datetime import date

from django import forms

from config.web.forms import SerializerForm
from payments.gateway import selectors as gateway_selectors
from payments.methods.serializers import InitiateMandateInput
from payments.methods.terms import MANDATE_TERMS_LABEL


def _bank_choices(processor):
    return [("", "Choose your bank")] + [
        (bank.code, bank.name) for bank in gateway_selectors.banks(processor=processor)
    ]


class _PageMandateInput(InitiateMandateInput):
    """The API's input, but the bank is checked by the form's own choices: the
    list of the processor of the mandate's side (the sandbox's for a test
    checkout), which the API's check (the live list) would refuse."""

    def validate_bank_code(self, value):
        return value


class BankAccountForm(SerializerForm):
    serializer_class = _PageMandateInput

    bank_code = forms.ChoiceField(label="Bank", choices=())
    account_number = forms.CharField(
        label="Account number (10 digits)",
        max_length=10,
        widget=forms.TextInput(attrs={"inputmode": "numeric", "autocomplete": "off"}),
    )

    # The mandate terms shown above it (DESIGN 18): unticked until ticked.
    terms_accepted = forms.BooleanField(
        label=MANDATE_TERMS_LABEL,
        error_messages={
            "required": "Tick the box to accept the mandate terms, or add a card "
            "instead."
        },
    )

    def __init__(self, *args, processor=None, **kwargs):
        """`processor`: the one of the side the mandate is made on (the live
        side's when None)."""
        super().__init__(*args, **kwargs)
        self.fields["bank_code"].choices = _bank_choices(processor)


class OtpForm(forms.Form):
    otp = forms.RegexField(
        label="One-time code",
        regex=r"^[0-9]{4,8}$",
        error_messages={"invalid": "Enter the 4 to 8 digits of the code."},
        widget=forms.TextInput(
            attrs={"inputmode": "numeric", "autocomplete": "one-time-code"}
        ),
    )


class BirthdayForm(forms.Form):
    birthday = forms.DateField(
        label="Date of birth",
        widget=forms.DateInput(attrs={"type": "date"}),
    )

    def clean_birthday(self):
        value = self.cleaned_data["birthday"]
        if not date(1900, 1, 1) <= value < date.today():
            raise forms.ValidationError("Enter a past date after 1900-01-01.")
        return value


class PhoneForm(forms.Form):
    phone = forms.RegexField(
        label="Phone number registered with the account",
        regex=r"^\+?[0-9]{7,19}$",
        error_messages={"invalid": "Enter digits, optionally starting with +."},
        widget=forms.TextInput(attrs={"inputmode": "tel", "autocomplete": "tel"}),
    )


STEP_FORMS = {
    "submit_otp": OtpForm,
    "submit_birthday": BirthdayForm,
    "submit_phone": PhoneForm,
}
# The payments service that submits each step, and the one form field it takes.
STEP_SUBMITS = {
    "submit_otp": ("mandate_submit_otp", "otp"),
    "submit_birthday": ("mandate_submit_birthday", "birthday"),
    "submit_phone": ("mandate_submit_phone", "phone"),
}
