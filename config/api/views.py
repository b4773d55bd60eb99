from rest_framework.views import APIView

from . import responses
from .auth import refresh_tokens
from .serializers import StrictCharField, StrictSerializer


class RefreshInput(StrictSerializer):
    refresh = StrictCharField(max_length=2000)


class TokenRefreshApi(APIView):
    """`POST /api/v1/auth/token/refresh`: a new pair for either JWT role."""

    authentication_classes = []

    def get_authenticate_header(self, request):
        # A bad refresh token is a 401; DRF needs a challenge to keep it one.
        return 'Bearer realm="api"'

    def post(self, request):
        values = RefreshInput.validated(request.data)
        return responses.no_store(responses.ok(refresh_tokens(values["refresh"])))
