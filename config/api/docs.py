"""The schema endpoint and the two documentation pages (Swagger UI, ReDoc).

The pages load only this service's own static files (the drf-spectacular-sidecar
copies of Swagger UI and ReDoc, plus static/js/api-docs.js): no CDN, no inline
script, so they run under a Content-Security-Policy of their own.
"""

from drf_spectacular.renderers import (
    OpenApiJsonRenderer,
    OpenApiJsonRenderer2,
    OpenApiYamlRenderer,
    OpenApiYamlRenderer2,
)
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import (
    SpectacularAPIView,
    SpectacularRedocView,
    SpectacularSwaggerSplitView,
)

from config.web.security_headers import CSP_HEADER, policy

# Both UIs render with inline styles (React and styled-components), and ReDoc
# runs its search index in a blob: worker; scripts stay 'self' only.
DOCS_POLICY = policy(
    style_src=("'self'", "'unsafe-inline'"),
    img_src=("'self'", "data:"),
    worker_src=("'self'", "blob:"),
)


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


class _DocsPage:
    authentication_classes = []
    throttle_classes = []

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response[CSP_HEADER] = DOCS_POLICY
        return response


class ApiDocsView(_DocsPage, SpectacularSwaggerSplitView):
    """`GET /api/docs/`: Swagger UI; its start-up script is served by the same view
    (`?script=`), not inlined."""

    template_name = "drf_spectacular/swagger_ui.html"


class ApiRedocView(_DocsPage, SpectacularRedocView):
    """`GET /api/redoc/`: ReDoc, started by static/js/api-docs.js."""

    template_name = "drf_spectacular/redoc.html"
