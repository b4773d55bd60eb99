"""HTTP in for the sandbox clock (`advance`)."""

from config.api.serializers import (
    IsoDateField,
    StrictSerializer,
)


class AdvanceInput(StrictSerializer):
    """`{to}`: the Lagos date the sandbox clock runs a plan to (its bounds are
    the plan's: checked by the service, 422)."""

    to = IsoDateField()
