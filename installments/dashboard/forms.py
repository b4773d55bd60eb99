"""Forms of the dashboard's plan pages."""

from django import forms

from ..models import PaymentPlan


class PlanSearchForm(forms.Form):
    """The plan list's search and filter (a GET form). A value outside the lists
    is shown as an error next to its field and left off."""

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

    def filters(self) -> dict:
        """The valid filters only (call after `is_valid()`)."""
        return {
            "query": "" if "q" in self.errors else self.cleaned_data.get("q", ""),
            "status": ""
            if "status" in self.errors
            else self.cleaned_data.get("status", ""),
        }
