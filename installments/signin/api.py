"""`POST /api/v1/auth/customer/password-reset` (DESIGN section 17)."""

from rest_framework.views import APIView

from config.api import responses
from config.api.login_guard import check_ask_allowed, client_ip

from . import services
from .serializers import PASSWORD_RESET_ANSWER, PasswordResetInput


class CustomerPasswordResetApi(APIView):
    """Always the same 200 (no enumeration); throttled per client address and
    per e-mail address (429)."""

    authentication_classes = []

    def post(self, request):
        email = PasswordResetInput.validated(request.data)["email"]
        check_ask_allowed(
            kind="customer",
            what="password-reset",
            email=email,
            client_ip=client_ip(request),
        )
        services.password_reset_send(email=email)
        return responses.ok(PASSWORD_RESET_ANSWER)
