"""HTTP in for paying early: one installment or the payoff."""

from rest_framework import serializers

from config.api.serializers import (
    StrictBooleanField,
    StrictCharField,
    StrictSerializer,
)


class PayEarlyInput(StrictSerializer):
    """`{installment_id}` pays one installment, `{payoff: true}` everything left;
    `payment_method_id` chooses the method (the default otherwise)."""

    installment_id = StrictCharField(max_length=40, required=False)
    payoff = StrictBooleanField(required=False)
    payment_method_id = StrictCharField(max_length=40, required=False)

    def validate(self, data):
        if data.get("payoff", False) == ("installment_id" in data):
            raise serializers.ValidationError(
                "Send installment_id to pay one installment, or payoff: true to pay "
                "everything left (not both)."
            )
        return data
