"""The payment link form of the dashboard.

The merchant types the amount in naira (`25,000` or `25000.50`): people think in
naira, and a kobo field invites amounts 100 times too small or too large. The form
turns it into kobo with integer arithmetic, then checks every field with the API's
own input serializer (`PaymentLinkCreateInput`) and the amount with the rules'
`check_amount`, as `payment_link_create` does again. So the dashboard and endpoint 4
accept and refuse the same links.
"""

from django import forms

from config.api.errors import AmountOutOfRange
from config.money import format_kobo, naira_to_kobo
from installments.plans.rules import MAX_AMOUNT, MIN_AMOUNT, check_amount

from ..serializers import PaymentLinkCreateInput
from ..services import SUPPORTED_CURRENCIES


def amount_range_message() -> str:
    return (
        f"Enter an amount between {format_kobo(MIN_AMOUNT)} and "
        f"{format_kobo(MAX_AMOUNT)}."
    )


class PaymentLinkForm(forms.Form):
    title = forms.CharField(
        help_text="What the customer buys, as the checkout page shows it.",
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
    amount = forms.CharField(
        label="Amount (₦)",
        help_text="In naira, e.g. 45000 or 45,000.50",
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )
    currency = forms.ChoiceField(
        choices=[(code, code) for code in SUPPORTED_CURRENCIES], initial="NGN"
    )
    description = forms.CharField(
        label="Description (optional)",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
    redirect_url = forms.CharField(
        label="Redirect URL (optional)",
        required=False,
        help_text="Where customers go after paying, e.g. https://yourshop.ng/thanks.",
        widget=forms.URLInput(attrs={"placeholder": "https://"}),
    )

    def __init__(self, merchant, *args, **kwargs):
        self.merchant = merchant
        super().__init__(*args, **kwargs)
        bounds = f"from {format_kobo(MIN_AMOUNT)} to {format_kobo(MAX_AMOUNT)}"
        self.fields["amount"].help_text += f"; {bounds}."

    def clean_amount(self):
        kobo = naira_to_kobo(self.cleaned_data["amount"])
        if kobo is None:
            raise forms.ValidationError(
                "Enter the amount in naira with at most two decimal places, "
                "e.g. 45000 or 45,000.50."
            )
        try:
            check_amount(kobo)
        except AmountOutOfRange:
            raise forms.ValidationError(amount_range_message()) from None
        return kobo

    def clean(self):
        """Every field's errors at once: fields that already failed are passed
        to the serializer as valid stand-ins, and its errors for them dropped."""
        cleaned = super().clean()
        stand_ins = {"title": "-", "amount": MIN_AMOUNT, "currency": "NGN"}
        data = {
            name: cleaned[name] if name in cleaned else stand_ins.get(name, "")
            for name in self.fields
        }
        serializer = PaymentLinkCreateInput(
            data={"merchant_id": self.merchant.public_id, **data}
        )
        if serializer.is_valid():
            if not self.errors:
                self.link_fields = {
                    name: value
                    for name, value in serializer.validated_data.items()
                    if name != "merchant_id"
                }
            return cleaned
        failed = set(self.errors)
        for name, messages in serializer.errors.items():
            if name in self.fields and name not in failed:
                for message in messages:
                    self.add_error(name, str(message))
        return cleaned


class ToggleForm(forms.Form):
    """The state the merchant asked for (not "flip"), so a second click or a
    reload cannot undo the first."""

    is_active = forms.TypedChoiceField(
        choices=[("true", "on"), ("false", "off")],
        coerce=lambda value: value == "true",
    )
