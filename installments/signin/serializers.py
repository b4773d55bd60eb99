"""HTTP in/out shapes of a customer's password reset."""

from config.api.serializers import StrictEmailField, StrictSerializer


class PasswordResetInput(StrictSerializer):
    email = StrictEmailField(max_length=254)


# The one answer, whether or not the address has an account.
PASSWORD_RESET_ANSWER = {
    "message": "If a customer account uses this address, we have e-mailed it a "
    "link to choose a new password. The link works once, for 1 hour."
}
