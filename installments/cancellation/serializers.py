"""HTTP in for cancelling a plan (DESIGN section 14): the reason, as long as
the plan's column takes."""

from config.api.serializers import (
    StrictCharField,
    StrictSerializer,
)

from ..plans.models import PaymentPlan

REASON_MAX_LENGTH = PaymentPlan._meta.get_field("cancellation_reason").max_length


class PlanCancelInput(StrictSerializer):
    reason = StrictCharField(max_length=REASON_MAX_LENGTH)
