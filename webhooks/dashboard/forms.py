"""Forms of the delivery log page."""

from django import forms

from ..models import EVENT_TYPES, Delivery


class DeliveryLogFilterForm(forms.Form):
    """The log's filters (a GET form). A value outside the lists is shown as an
    error next to its field and that filter is left off."""

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

    def filters(self) -> dict:
        """The valid filters only (call after `is_valid()`)."""
        return {
            name: self.cleaned_data.get(name, "")
            for name in self.fields
            if name not in self.errors
        }
