"""Forms of the dashboard's plan pages: the list's filters, a refund (typed,
then confirmed) and a cancellation."""

from django import forms

from config.money import format_kobo, naira_to_kobo
from config.web.forms import FilterForm, SerializerForm, validate_with_serializer

from ..cancellation.serializers import PlanCancelInput
from ..plans.models import PaymentPlan
from ..plans.rules import MAX_AMOUNT
from ..refunds.serializers import REASON_MAX_LENGTH, RefundCreateInput


class PlanSearchForm(FilterForm):
    """The plan list's search and filter."""

    filter_names = {"q": "query"}

    q = forms.CharField(
        label="Order reference",
        required=False,
        max_length=100,
        widget=forms.TextInput(
            attrs={"type": "search", "placeholder": "e.g. ORD-1001 or a plan id"}
        ),
    )
    status = forms.ChoiceField(
        label="Status",
        required=False,
        choices=[("", "Any status"), *PaymentPlan.Status.choices],
    )


class InstallmentRangeForm(forms.Form):
    """The installments to download: those due from one date to another (both
    included, either may be left empty)."""

    due_from = forms.DateField(
        label="Due from",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    due_to = forms.DateField(
        label="to", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def clean(self):
        data = super().clean()
        due_from, due_to = data.get("due_from"), data.get("due_to")
        if due_from and due_to and due_from > due_to:
            self.add_error("due_to", "The end date must not be before the start date.")
        return data


class RefundForm(forms.Form):
    """A refund as the merchant types it: the amount in naira (with kobo), and
    the reason. Checked with the API's `RefundCreateInput`, so the page and
    `POST .../refunds` accept the same refunds."""

    amount = forms.CharField(
        label="Amount to refund (₦)",
        help_text="In naira, e.g. 25000 or 25,000.50. It comes off the unpaid "
        "installments first; only the rest is paid back to the customer.",
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )
    reason = forms.CharField(
        label="Reason",
        help_text="For your records and the customer's notice, e.g. "
        "“Returned the charger”.",
        max_length=REASON_MAX_LENGTH,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )

    def clean_amount(self):
        kobo = naira_to_kobo(self.cleaned_data["amount"])
        if kobo is None:
            raise forms.ValidationError(
                "Enter the amount in naira with at most two decimal places, "
                "e.g. 25000 or 25,000.50."
            )
        if not 0 < kobo <= MAX_AMOUNT:
            raise forms.ValidationError(
                f"Enter an amount from {format_kobo(1)} to {format_kobo(MAX_AMOUNT)}."
            )
        return kobo

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            validated = validate_with_serializer(
                self,
                RefundCreateInput,
                {"amount": cleaned["amount"], "reason": cleaned["reason"]},
            )
            if validated is not None:
                cleaned.update(validated)
        return cleaned


class RefundConfirmForm(RefundForm):
    """The confirmation page's form: the refund previewed (the amount now in
    kobo) and the `Idempotency-Key` made for it, all hidden, so a double click
    or a second tab posts the same key and creates one refund."""

    amount = forms.IntegerField(widget=forms.HiddenInput)
    reason = forms.CharField(max_length=REASON_MAX_LENGTH, widget=forms.HiddenInput)
    key = forms.UUIDField(widget=forms.HiddenInput)

    def clean_amount(self):
        return self.cleaned_data["amount"]


class PlanCancelForm(SerializerForm):
    """Why the plan is cancelled; checked with the API's `PlanCancelInput`."""

    serializer_class = PlanCancelInput

    reason = forms.CharField(
        label="Reason",
        help_text="For your records and the customer's notice, e.g. “Order "
        "cancelled by the customer”.",
        max_length=REASON_MAX_LENGTH,
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )
