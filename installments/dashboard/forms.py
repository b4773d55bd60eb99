"""Forms of the dashboard's plan pages: the list's filters, a refund (typed,
then confirmed) and a cancellation; and of the disputes' pages: their filter,
the answer with evidence and the acceptance."""

import re

from django import forms

from config.money import format_kobo, naira_to_kobo
from config.text import no_control_characters
from config.web.forms import FilterForm, SerializerForm, validate_with_serializer

from ..cancellation.serializers import PlanCancelInput
from ..disputes.models import Dispute
from ..disputes.services import Answer
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


# --- disputes (DESIGN section 19) ---------------------------------------------

_MULTILINE_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029]")


def no_control_characters_but_lines(value: str) -> None:
    """A text of several lines: line breaks and tabs are fine, other control
    characters are not."""
    if _MULTILINE_CONTROL.search(value or ""):
        raise forms.ValidationError(
            "Control characters other than line breaks are not allowed.",
            code="control_characters",
        )


class DisputeFilterForm(FilterForm):
    status = forms.ChoiceField(
        label="Status",
        required=False,
        choices=[("", "Any status"), *Dispute.Status.choices],
    )


EVIDENCE_ACCEPT = "application/pdf,image/jpeg,image/png,.pdf,.jpg,.jpeg,.png"


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files of one input; checked by `installments.disputes.files`."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault(
            "widget", MultipleFileInput(attrs={"accept": EVIDENCE_ACCEPT})
        )
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        items = data if isinstance(data, list | tuple) else [data]
        return [item for item in items if item]


def _line(label, max_length, *, required=True, help_text="", **attrs):
    return forms.CharField(
        label=label,
        max_length=max_length,
        required=required,
        help_text=help_text,
        validators=[no_control_characters],
        widget=forms.TextInput(attrs=attrs),
    )


def _lines(label, max_length, *, required=True, help_text=""):
    return forms.CharField(
        label=label,
        max_length=max_length,
        required=required,
        help_text=help_text,
        validators=[no_control_characters_but_lines],
        widget=forms.Textarea(attrs={"rows": 4}),
    )


class DisputeAnswerForm(forms.Form):
    """The merchant's evidence: the processor's fields and up to 5 files."""

    customer_email = forms.EmailField(
        label="Customer's e-mail", max_length=254, validators=[no_control_characters]
    )
    customer_name = _line("Customer's name", 200, autocomplete="off")
    customer_phone = _line("Customer's phone", 30, inputmode="tel", autocomplete="off")
    service_details = _lines(
        "What was sold",
        2000,
        help_text="The goods or service the customer bought and received.",
    )
    delivery_address = _line("Delivery address", 500, required=False)
    delivery_date = forms.DateField(
        label="Delivery date",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
    )
    message = _lines(
        "Message to the bank",
        2000,
        required=False,
        help_text="Anything else that shows the customer made this purchase.",
    )
    files = MultipleFileField(
        label="Files",
        required=False,
        help_text="Up to 5 files (PDF, JPEG or PNG, 5 MiB each): proof of delivery, "
        "receipts, your messages with the customer. The agreement the customer "
        "accepted is attached for you.",
    )

    def answer(self, files) -> Answer:
        data = self.cleaned_data
        delivered = data.get("delivery_date")
        return Answer(
            customer_email=data["customer_email"],
            customer_name=data["customer_name"],
            customer_phone=data["customer_phone"],
            service_details=data["service_details"],
            delivery_address=data.get("delivery_address", ""),
            delivery_date=delivered.isoformat() if delivered else "",
            message=data.get("message", ""),
            files=files,
        )


class DisputeAcceptForm(forms.Form):
    confirm = forms.BooleanField(
        label="I accept this dispute: the customer keeps the money.",
        error_messages={"required": "Tick the box to confirm that you accept it."},
    )
