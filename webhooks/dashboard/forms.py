"""Forms of the delivery log page."""

from django import forms

from config.web.forms import FilterForm

from ..models import EVENT_TYPES, Delivery


class DeliveryLogFilterForm(FilterForm):
    """The delivery log's filters."""

    event_type = forms.ChoiceField(
        label="Event type",
        required=False,
        choices=[("", "All event types"), *((kind, kind) for kind in EVENT_TYPES)],
    )
    status = forms.ChoiceField(
        label="Delivery status",
        required=False,
        choices=[("", "Any status"), *Delivery.Status.choices],
    )
