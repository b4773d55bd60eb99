"""HTTP in for the sandbox clock (`advance`) and the sandbox's completion of a
pending bank transfer or USSD payment."""

from config.api.serializers import (
    IsoDateField,
    StrictIntegerField,
    StrictSerializer,
)


class AdvanceInput(StrictSerializer):
    """`{to}`: the Lagos date the sandbox clock runs a plan to (its bounds are
    the plan's: checked by the service, 422)."""

    to = IsoDateField()


class SandboxCompleteInput(StrictSerializer):
    """`{amount}` (optional): the kobo the customer sends; the payment's own
    amount when left out (another amount is refused, 422)."""

    amount = StrictIntegerField(required=False, min_value=1)
