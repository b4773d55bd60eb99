"""The form of a reschedule on the customer's and the merchant's plan pages:
which installment and its new date, checked with the API's `RescheduleInput`
(so the pages and `POST .../reschedule` accept the same dates)."""

from django import forms

from config.money import format_kobo
from config.web.forms import validate_with_serializer

from .serializers import RescheduleInput


class RescheduleForm(forms.Form):
    installment_id = forms.ChoiceField(label="Installment")
    due_date = forms.DateField(
        label="New due date",
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        input_formats=["%Y-%m-%d"],
        help_text="A working day (not a weekend or public holiday), before the "
        "next installment's date.",
    )

    def __init__(self, installments, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["installment_id"].choices = [
            (
                row.public_id,
                # Short enough for a phone's menu (the field says "Installment").
                f"#{row.sequence}, {format_kobo(row.amount, row.currency)}, "
                f"due {row.due_date.day} {row.due_date:%b %Y}",
            )
            for row in installments
        ]

    def clean(self):
        cleaned = super().clean()
        if not self.errors:
            validated = validate_with_serializer(
                self, RescheduleInput, {"due_date": cleaned["due_date"].isoformat()}
            )
            if validated is not None:
                cleaned.update(validated)
        return cleaned
