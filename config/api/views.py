"""config's own endpoints: the token refresh and the OpenAPI schema (its pages,
Swagger UI and ReDoc, are HTML: `config/web/api_docs.py`)."""

from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
    OpenApiYamlRenderer2,
)
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView
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


class ApiSchemaView(SpectacularAPIView):
    """`GET /api/v1/schema/`: OpenAPI 3 JSON (`?format=yaml` for YAML).

    The first renderer is the default (`Accept: */*` or none); the plain
    `application/json` and `application/yaml` that code generators send are
    served too, not refused with a 406.
    """

    renderer_classes = [
        OpenApiJsonRenderer,
        OpenApiYamlRenderer,
        OpenApiJsonRenderer2,
        OpenApiYamlRenderer2,
    ]
    authentication_classes = []
    throttle_classes = []

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)
