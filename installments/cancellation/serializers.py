"""HTTP in for cancelling a plan (DESIGN section 14): the reason, as long as
the plan's column takes."""

from config.api.serializers import (
    StrictCharField,
    StrictSerializer,
)
from config.text import no_control_characters

from ..plans.models import PaymentPlan

REASON_MAX_LENGTH = PaymentPlan._meta.get_field("cancellation_reason").max_length


class PlanCancelInput(StrictSerializer):
    # The customer reads it in the notice of the cancellation (DESIGN 18).
    reason = StrictCharField(
        max_length=REASON_MAX_LENGTH, validators=[no_control_characters]
    )
