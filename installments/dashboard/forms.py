"""Forms of the dashboard's plan pages."""

from django import forms

from config.web.forms import FilterForm

from ..models import PaymentPlan


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
